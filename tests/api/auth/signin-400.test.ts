import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { sessionCall } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/auth/signin → 400 validation_failed', () => {
  it.each([
    ['no password', { email: 'ada@example.com' }, ['password']],
    ['an empty email', { email: '', password: 'whatever it is' }, ['email']],
    ['a number for the password', { email: 'ada@example.com', password: 1234567890 }, ['password']],
    ['an unknown field', { email: 'ada@example.com', password: 'whatever it is', remember: true }, ['remember']],
  ])('refuses %s', async (_name, body, fields) => {
    expectValidation(await sessionCall(t, 'POST', '/api/v1/auth/signin', null, { body }), fields);
  });
});
