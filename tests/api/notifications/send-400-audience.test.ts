import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications with a bad audience → 400', () => {
  it.each([
    ['two selectors', { externalIds: ['alice'], tags: { any: ['vip'] } }, ['externalIds', 'tags']],
    ['an empty externalIds', { externalIds: [] }, ['externalIds']],
    ['10,001 externalIds', { externalIds: Array.from({ length: 10_001 }, (_, n) => String(n)) }, ['externalIds']],
    ['an empty externalId', { externalIds: [''] }, ['externalIds.0']],
    [
      'a subscriberId that is not one',
      { subscriberIds: ['ntf_01h00000000000000000000000', 'bob'] },
      ['subscriberIds.0', 'subscriberIds.1'],
    ],
    ['tags without a list', { tags: {} }, ['tags']],
    ['a bad tag', { tags: { all: ['has space'] } }, ['tags.all.0']],
    ['an unknown tags key', { tags: { noneOf: ['vip'] } }, ['tags.noneOf']],
  ])('refuses %s and stores nothing', async (_name, audience, fields) => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    expectValidation(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi', ...audience }),
      fields,
    );
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
