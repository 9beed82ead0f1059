import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectValidation } from '../../harness/api-expect.ts';
import { rawRequest } from '../../harness/api-routes.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notify → 400', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['no channel', { title: 'Hi' }, ['channel']],
    ['the /notifications field name', { channelCode: 'news', title: 'Hi' }, ['channel', 'channelCode']],
    ['a channel of the wrong shape', { channel: 'NEWS', title: 'Hi' }, ['channel']],
    ['neither title nor body', { channel: 'news' }, ['title']],
    ['a relative url', { channel: 'news', title: 'Hi', url: 'orders/42' }, ['url']],
    ['a title of 257 characters', { channel: 'news', title: 'x'.repeat(257) }, ['title']],
  ])('refuses %s with validation_failed, and stores nothing', async (_name, body, fields) => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    expectValidation(await post(t.app, '/api/v1/notify', account.secretKey, body), fields);
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('answers invalid_json for a body that is not JSON', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectError(
      await rawRequest(t.app, 'POST', '/api/v1/notify', account.secretKey, '{channel: news}', {
        'content-type': 'application/json',
      }),
      'invalid_json',
    );
  });
});
