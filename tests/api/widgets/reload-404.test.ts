import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { widgetDispatchJobs } from './widget-requests.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/widgets/reload → 404', () => {
  it("answers channel_not_found for an unknown channel or another account's, queuing and charging nothing", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    await t.newAccount({ channels: ['sport'] });
    const before = await accountState(t, account.id);
    for (const channelCode of ['ghost', 'sport']) {
      const error = expectError(
        await post(t.app, '/api/v1/widgets/reload', account.secretKey, { channelCode }),
        'channel_not_found',
      );
      expect(error.details).toEqual({ channelCode });
    }
    expect(await accountState(t, account.id)).toEqual(before);
    expect(await widgetDispatchJobs(t, account.id)).toEqual([]);
  });
});
