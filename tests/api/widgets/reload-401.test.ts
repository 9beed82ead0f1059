import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../../src/store/api-keys-queries.ts';
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

describe('POST /api/v1/widgets/reload → 401', () => {
  it.each([
    ['no key', null],
    ['an unknown key', 'clr_sk_live_unknownunknownunknownunknown'],
  ])('answers unauthorized to %s, queuing nothing', async (_name, key) => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    expectError(await post(t.app, '/api/v1/widgets/reload', key, { channelCode: 'news' }), 'unauthorized');
    expect(await accountState(t, account.id)).toEqual(before);
    expect(await widgetDispatchJobs(t, account.id)).toEqual([]);
  });

  it('answers unauthorized to a revoked key', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const other = await account.key({ kind: 'secret' });
    await revokeApiKey(t.store.db, other.id, t.clock.now());
    expectError(await post(t.app, '/api/v1/widgets/reload', other.value, { channelCode: 'news' }), 'unauthorized');
    expect(await widgetDispatchJobs(t, account.id)).toEqual([]);
  });
});
