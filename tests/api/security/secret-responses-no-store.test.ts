import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { secretRoutes } from './secret-routes.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhooks: false });
});
afterAll(async () => t.close());

describe('Responses that carry a secret are Cache-Control: no-store', () => {
  it.each(secretRoutes.map((route) => [route.name, route] as const))('%s', async (_name, route) => {
    const user = await signUp(t);
    const { url, body } = await route.prepare(t, user);
    const response = await sessionCall(t, route.method, url, user, body === undefined ? {} : { body });
    expect(route.secretOf(expectSuccess(response, route.status))).toMatch(/^(clr_sk_|whsec_)/);
    expect(response.headers['cache-control']).toBe('no-store');
  });
});
