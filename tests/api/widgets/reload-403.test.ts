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

describe('POST /api/v1/widgets/reload → 403', () => {
  it('forbids a publishable key, queuing nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    expectError(
      await post(t.app, '/api/v1/widgets/reload', account.publishableKey, { channelCode: 'news' }),
      'forbidden',
    );
    expect(await accountState(t, account.id)).toEqual(before);
    expect(await widgetDispatchJobs(t, account.id)).toEqual([]);
  });

  it.each([
    ['that exists', 'sport'],
    ['that does not exist', 'ghost'],
  ])('answers channel_not_allowed for a channel outside the key scope %s', async (_name, channelCode) => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const scoped = await account.key({ channels: ['news'] });
    const before = await accountState(t, account.id);
    const error = expectError(
      await post(t.app, '/api/v1/widgets/reload', scoped.value, { channelCode }),
      'channel_not_allowed',
    );
    expect(error.details).toEqual({ channelCode });
    expect(await accountState(t, account.id)).toEqual(before);
    expect(await widgetDispatchJobs(t, account.id)).toEqual([]);
  });

  it('lets the scoped key reload a channel in its scope', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const scoped = await account.key({ channels: ['news'] });
    expect((await post(t.app, '/api/v1/widgets/reload', scoped.value, { channelCode: 'news' })).statusCode).toBe(202);
  });
});
