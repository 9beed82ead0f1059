import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { contentToColumns } from '../../src/domain/notification-content.ts';
import { storeAcceptedNotification, type AcceptedNotification } from '../../src/queue/store-accepted-notification.ts';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { createChannel } from '../../src/store/channels-queries.ts';
import { testDialect } from '../harness/test-dialect.ts';
import { openQueueFixture, type QueueFixture } from './queue-harness.ts';

let f: QueueFixture;
beforeAll(async () => {
  f = await openQueueFixture();
});
afterAll(async () => f.close());

/**
 * The accept path on PostgreSQL stores a notification with one statement and no transaction around it
 * (src/http/endpoints/notifications/accept-notification.ts): that statement alone must be all or nothing.
 */
describe(`storeAcceptedNotification outside a transaction (${testDialect})`, () => {
  it('stores the charge, the notification and its dispatch job together, and nothing once the quota is used up', async () => {
    const now = f.clock.now();
    const db = f.testStore.store.db;
    const account = await createAccount(db, { name: `store-accepted ${now}`, plan: 'starter', now });
    const channel = await createChannel(db, {
      accountId: account.id,
      code: 'news',
      name: 'News',
      description: null,
      now,
    });
    const kind = f.kind('dispatch');
    const accept = (title: string) => {
      const id = newId('notification', now);
      const input: AcceptedNotification = {
        quota: { accountId: account.id, period: '2026-11', limit: 1 },
        notification: {
          id,
          account_id: account.id,
          channel_id: channel.id,
          channel_code: channel.code,
          ...contentToColumns({ title }),
          status: 'queued',
          send_at: null,
          delivered_count: 0,
          failed_count: 0,
          skipped_count: 0,
          held_count: 0,
          audience: null,
          targeted_count: null,
          dispatches_pending: 1,
          deliver_at_local_time: null,
          canceled_at: null,
          failure_reason: null,
          created_at: now,
          updated_at: now,
        },
        dispatches: [{ kind, payload: { notificationId: id }, uniqueKey: `dispatch:${id}:*` }],
        quotaRefused: (used) => new Error(`quota used up at ${used}`),
        audience: null,
      };
      return storeAcceptedNotification(db, f.testStore.store, f.queue, input);
    };

    expect(await accept('first')).toEqual({ used: 1, recipientCount: 0 });
    await expect(accept('one too many')).rejects.toThrow('quota used up at 1');

    const stored = await db.selectFrom('notifications').select('title').where('account_id', '=', account.id).execute();
    expect(stored.map((row) => row.title)).toEqual(['first']);
    const jobs = await db.selectFrom('jobs').select('payload').where('kind', '=', kind).execute();
    expect(jobs).toHaveLength(1);
    const usage = await db.selectFrom('usage_counters').select('used').where('account_id', '=', account.id).execute();
    expect(usage.map((row) => Number(row.used))).toEqual([1]);
  });
});
