import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { send } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { widgetDispatchJobs } from './widget-requests.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/widgets/reload → 429 quota_exceeded', () => {
  it('refuses the reload once the month is used up (notifications and reloads share it), queuing nothing', async () => {
    const account = await t.newAccount({ channels: ['news'], plan: 'starter', limit: 2 });
    await send(t.app, account.secretKey, 'news');
    expectSuccess(await post(t.app, '/api/v1/widgets/reload', account.secretKey, { channelCode: 'news' }), 202);
    const before = await accountState(t, account.id);
    const jobsBefore = await widgetDispatchJobs(t, account.id);

    const response = await post(t.app, '/api/v1/widgets/reload', account.secretKey, { channelCode: 'news' });
    expect(expectError(response, 'quota_exceeded').details).toMatchObject({ plan: 'starter', limit: 2, used: 2 });
    expect(await accountState(t, account.id)).toEqual(before);
    expect(await widgetDispatchJobs(t, account.id)).toEqual(jobsBefore);
    // And the reload used the quota a notification now cannot have.
    expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
      'quota_exceeded',
    );
  });
});
