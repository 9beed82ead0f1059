import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/auth/switch-account → 400 validation_failed', () => {
  it.each([
    ['no accountId', {}, ['accountId']],
    ['a number', { accountId: 42 }, ['accountId']],
    ['an unknown field', { accountId: 'acc_x', role: 'owner' }, ['role']],
  ])('refuses %s', async (_name, body, fields) => {
    const user = await signUp(t);
    expectValidation(await sessionCall(t, 'POST', '/api/v1/auth/switch-account', user, { body }), fields);
  });
});
