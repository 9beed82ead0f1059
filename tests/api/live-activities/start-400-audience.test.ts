import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectValidation } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { progressActivity } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities with an audience → 400', () => {
  it('→ 400 for two audiences at once, and nothing is stored or charged', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    expectValidation(
      await post(t.app, '/api/v1/live-activities', account.secretKey, {
        ...progressActivity('news'),
        externalIds: ['a'],
        subscriberIds: ['sub_x'],
      }),
      ['externalIds', 'subscriberIds'],
    );
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
