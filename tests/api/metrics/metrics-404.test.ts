import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ metricsToken: undefined });
});
afterAll(async () => t.close());

describe('GET /metrics → 404 (CLARION_METRICS_TOKEN unset)', () => {
  it('does not exist on the main port, with or without a token', async () => {
    expectError(await get(t.app, '/metrics', null), 'not_found');
    expectError(await get(t.app, '/metrics', 'anything'), 'not_found');
    const account = await t.newAccount();
    expectError(await get(t.app, '/metrics', account.secretKey), 'not_found');
  });
});
