import { describe, expect, expectTypeOf, it } from 'vitest';
import { configOptions } from '../../src/config/config-options.ts';
import { loadConfig, type Config } from '../../src/config/load-config.ts';

/** Config is derived from configOptions; `npm run typecheck` checks these type assertions, vitest the runtime twin. */
describe('the Config type', () => {
  it('has exactly one key per declared option, typed by its kind', () => {
    expectTypeOf<keyof Config>().toEqualTypeOf<(typeof configOptions)[number]['key']>();
    expectTypeOf<Config['port']>().toEqualTypeOf<number>();
    expectTypeOf<Config['webhookRetrySchedule']>().toEqualTypeOf<number[]>();
    expectTypeOf<Config['allowPrivateWebhooks']>().toEqualTypeOf<boolean>();
    expectTypeOf<Config['signup']>().toEqualTypeOf<'open' | 'closed'>();
    expectTypeOf<Config['databaseUrl']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Config['host']>().toEqualTypeOf<string>();
    expect(Object.keys(loadConfig({})).sort()).toEqual(configOptions.map((option) => option.key).sort());
  });
});
