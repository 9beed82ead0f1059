import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../scripts/client-types.ts';

/**
 * The client package's types are generated from the app's OpenAPI document and committed, so the package needs no
 * generator to be used. A route schema changed without regenerating them fails here.
 */
describe('packages/client/src/api-types.ts', () => {
  it('is what `npm run client:types` generates from the current routes', async () => {
    const committed = readFileSync(CLIENT_TYPES_FILE, 'utf8');
    const current = await renderClientTypes();
    expect(
      committed === current,
      'the client types are stale: run `npm run client:types` and commit packages/client/src/api-types.ts',
    ).toBe(true);
  });
});
