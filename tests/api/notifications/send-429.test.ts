import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPATCH_NOTIFICATION } from '../../../src/delivery/job-kinds.ts';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { send } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications → 429 quota_exceeded', () => {
  it('refuses the send after the monthly limit, with plan, limit, used and resetsAt, and stores nothing', async () => {
    const account = await t.newAccount({ channels: ['news'], plan: 'starter', limit: 2 });
    await send(t.app, account.secretKey, 'news');
    const last = await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' });
    expect(last.statusCode).toBe(201);
    expect(last.headers['x-quota-remaining']).toBe('0');
    const before = await accountState(t, account.id);

    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'One too many',
    });
    const now = new Date(t.clock.now());
    const resetsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(expectError(response, 'quota_exceeded').details).toEqual({ plan: 'starter', limit: 2, used: 2, resetsAt });
    expect(response.headers['x-quota-limit']).toBe('2');
    expect(await accountState(t, account.id)).toEqual(before);
    // Nor a dispatch job (on PostgreSQL the job is in the same statement as the charge, written only if it was taken).
    expect(await orphanDispatchJobs()).toEqual([]);
  });

  it('refuses a scheduled notification too', async () => {
    const account = await t.newAccount({ channels: ['news'], limit: 1 });
    await send(t.app, account.secretKey, 'news');
    const sendAt = new Date(t.clock.now() + 86_400_000).toISOString();
    expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Later', sendAt }),
      'quota_exceeded',
    );
  });
});

describe('POST /api/v1/notifications → 429 rate_limited', () => {
  it('answers rate_limited with Retry-After once the key has spent its burst, and stores nothing', async () => {
    const limited = await startTestApp({ rateLimitPerSecond: 1, rateLimitBurst: 1 });
    try {
      const account = await limited.newAccount({ channels: ['news'] });
      await send(limited.app, account.secretKey, 'news');
      const before = await accountState(limited, account.id);
      const error = expectError(
        await post(limited.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
        'rate_limited',
      );
      expect(error.details).toEqual({ retryAfterSeconds: 1 });
      expect(await accountState(limited, account.id)).toEqual(before);
    } finally {
      await limited.close();
    }
  });
});

/** Dispatch jobs whose notification does not exist. */
async function orphanDispatchJobs(): Promise<string[]> {
  const jobs = await t.store.db
    .selectFrom('jobs')
    .select('payload')
    .where('kind', '=', DISPATCH_NOTIFICATION)
    .execute();
  const ids = jobs.map((job) => (JSON.parse(job.payload) as { notificationId: string }).notificationId);
  if (ids.length === 0) return [];
  const stored = new Set(
    (await t.store.db.selectFrom('notifications').select('id').where('id', 'in', ids).execute()).map((row) => row.id),
  );
  return ids.filter((id) => !stored.has(id));
}
