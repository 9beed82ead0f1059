import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectValidation } from '../../harness/api-expect.ts';
import { GOOD_PASSWORD, randomEmail, sessionCall } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const signup = (body: unknown) => sessionCall(t, 'POST', '/api/v1/auth/signup', null, { body });
const userWith = async (email: unknown) =>
  typeof email === 'string'
    ? t.store.db.selectFrom('users').select('id').where('email', '=', email.trim().toLowerCase()).executeTakeFirst()
    : undefined;

describe('POST /api/v1/auth/signup → 400', () => {
  it.each([
    ['a short password', { email: randomEmail(), password: 'short' }, ['password'], /at least 10 characters/],
    [
      'a password over 200 characters',
      { email: randomEmail(), password: 'x'.repeat(201) },
      ['password'],
      /at most 200 characters/,
    ],
    ['an email without a domain', { email: 'ada@', password: GOOD_PASSWORD }, ['email'], /email address/],
    ['both wrong', { email: 'not an email', password: '123' }, ['email', 'password'], /./],
    ['no password', { email: randomEmail() }, ['password'], /./],
    ['an unknown field', { email: randomEmail(), password: GOOD_PASSWORD, plan: 'business' }, ['plan'], /./],
    ['an empty account name', { email: randomEmail(), password: GOOD_PASSWORD, accountName: '' }, ['accountName'], /./],
  ])('refuses %s, naming the field, and creates nothing', async (_name, body, fields, message) => {
    const problems = expectValidation(await signup(body), fields);
    expect(problems.map((problem) => problem.message).join(' ')).toMatch(message);
    expect(await userWith((body as { email?: unknown }).email)).toBeUndefined();
  });

  it('answers invalid_json to a body that is not JSON', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/signup',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    expectError({ ...response, body: JSON.parse(response.body) }, 'invalid_json');
  });
});
