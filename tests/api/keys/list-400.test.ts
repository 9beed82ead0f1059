import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { sessionCall, signUp } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/keys → 400 validation_failed', () => {
  it.each([
    ['a cursor that is not a key id', '?cursor=ntf_x', ['cursor']],
    ['a limit of 0', '?limit=0', ['limit']],
    ['an unknown parameter', '?kind=secret', ['kind']],
  ])('refuses %s', async (_name, query, fields) => {
    const user = await signUp(t);
    expectValidation(await sessionCall(t, 'GET', `/api/v1/keys${query}`, user), fields);
  });
});
