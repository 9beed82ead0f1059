import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/channels → 409 conflict', () => {
  it('refuses a code already used in the account and leaves the existing channel as it was', async () => {
    const account = await t.newAccount();
    const original = expectSuccess(
      await post(t.app, '/api/v1/channels', account.secretKey, { code: 'news', name: 'News' }),
      201,
    );
    const before = await accountState(t, account.id);
    const error = expectError(
      await post(t.app, '/api/v1/channels', account.secretKey, { code: 'news', name: 'Other' }),
      'conflict',
    );
    expect(error.details).toEqual({ field: 'code', channelCode: 'news' });
    expect(await accountState(t, account.id)).toEqual(before);
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200)).toEqual(original);
  });

  it('refuses one of two concurrent creations of the same code', async () => {
    const account = await t.newAccount();
    const responses = await Promise.all(
      [1, 2, 3].map(() => post(t.app, '/api/v1/channels', account.secretKey, { code: 'race' })),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 409, 409]);
    for (const response of responses.filter((item) => item.statusCode === 409)) expectError(response, 'conflict');
  });
});
