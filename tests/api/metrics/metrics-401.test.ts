import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ metricsToken: TOKEN });
});
afterAll(async () => t.close());

describe('GET /metrics → 401 (CLARION_METRICS_TOKEN set)', () => {
  it('refuses a request without Authorization, in the error envelope, with no metrics in it', async () => {
    const response = await get(t.app, '/metrics', null);
    expectError(response, 'unauthorized');
    expect(JSON.stringify(response.body)).not.toContain('clarion_');
  });

  it('refuses a wrong token, a prefix of the token, the token with more after it, and an empty one', async () => {
    for (const wrong of ['not-the-token', TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase()]) {
      expectError(await get(t.app, '/metrics', wrong), 'unauthorized');
    }
    expectError(await get(t.app, '/metrics', null, { authorization: 'Bearer ' }), 'unauthorized');
  });

  it('refuses the token in another scheme or in the query string', async () => {
    expectError(
      await get(t.app, '/metrics', null, { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` }),
      'unauthorized',
    );
    expectError(await get(t.app, '/metrics', null, { authorization: TOKEN }), 'unauthorized');
    expectError(await get(t.app, `/metrics?token=${TOKEN}`, null), 'unauthorized');
  });

  it('refuses an API key of an account: metrics are for the operator', async () => {
    const account = await t.newAccount();
    expectError(await get(t.app, '/metrics', account.secretKey), 'unauthorized');
  });
});
