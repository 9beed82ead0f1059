import { DISPATCH_NOTIFICATION } from '../../src/delivery/job-kinds.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { newId } from '../../src/domain/ids.ts';
import { contentToColumns, type RequestedContent } from '../../src/domain/notification-content.ts';
import { JobQueue } from '../../src/queue/job-queue.ts';
import type { BenchDatabase } from './bench-database.ts';
import type { BenchChannel } from './fanout-channel.ts';

export interface Delivery {
  seconds: number;
  delivered: number;
  failed: number;
}

/**
 * Accepts one notification to the channel the way POST /notifications does (row + dispatch job in one transaction) and
 * waits until the workers have settled every subscriber. `onTick` runs on every poll (peak sampling); `content`
 * overrides the bench's title and body or adds to them (a throttle).
 */
export async function deliverNotification(
  bench: BenchDatabase,
  channel: BenchChannel,
  onTick: () => void = () => {},
  content: RequestedContent = {},
): Promise<Delivery> {
  const { store } = bench;
  const queue = JobQueue.forStore(store, systemClock);
  const notificationId = newId('notification', Date.now());
  const started = performance.now();
  await store.db.transaction().execute(async (trx) => {
    const now = Date.now();
    await trx
      .insertInto('notifications')
      .values({
        id: notificationId,
        account_id: channel.accountId,
        channel_id: channel.channelId,
        channel_code: channel.code,
        ...contentToColumns({ title: 'Bench', body: 'Fan-out benchmark', ...content }),
        status: 'queued',
        send_at: null,
        recipient_count: channel.size,
        delivered_count: 0,
        failed_count: 0,
        targeted_count: null,
        dispatches_pending: 1,
        deliver_at_local_time: null,
        canceled_at: null,
        failure_reason: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await queue.enqueue(trx, { kind: DISPATCH_NOTIFICATION, payload: { notificationId } });
  });
  for (;;) {
    onTick();
    const row = await store.db
      .selectFrom('notifications')
      .select(['status', 'delivered_count', 'failed_count'])
      .where('id', '=', notificationId)
      .executeTakeFirstOrThrow();
    if (row.status === 'sent' || row.status === 'failed') {
      return {
        seconds: (performance.now() - started) / 1000,
        delivered: Number(row.delivered_count),
        failed: Number(row.failed_count),
      };
    }
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 25));
  }
}
