import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.ts';
import type { Platform } from '../domain/device-token.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { JobHandler } from '../queue/worker-pool.ts';
import { finishDispatch, pageDispatchTargets, recordDispatchedPage } from '../store/deliveries-store.ts';
import type { Store } from '../store/database.ts';
import { completeNotificationIfDone } from './notification-completion.ts';
import { DISPATCH_PAGE_SIZE, SEND_BATCH, SEND_BATCH_SIZE, type DispatchPayload, type SendBatchPayload } from './job-kinds.ts';

export interface DeliveryDependencies {
  store: Store;
  queue: JobQueue;
  clock: Clock;
  logger: Logger;
}

/** Thrown when another dispatcher moved the cursor first (this one's lease was rescued): leave the work to it. */
class DispatchOvertakenError extends Error {}

/**
 * Fan-out, step one: pages the channel's active subscribers by id and enqueues send jobs of up to 500 tokens per
 * platform. Each page's send jobs and the dispatch cursor are written in one transaction, so a dispatch that dies
 * resumes after the last page it enqueued and never enqueues a page twice.
 */
export function dispatchNotificationHandler(deps: DeliveryDependencies): JobHandler {
  return async (job, { signal }) => {
    const { notificationId } = JSON.parse(job.payload) as DispatchPayload;
    const { db } = deps.store;
    const notification = await db.selectFrom('notifications').selectAll().where('id', '=', notificationId).executeTakeFirst();
    if (!notification || notification.status === 'sent' || notification.status === 'failed' || notification.status === 'canceled') return;
    if (notification.targeted_count !== null) return; // dispatched already; the send jobs finish it
    await db
      .updateTable('notifications')
      .set({ status: 'sending', updated_at: deps.clock.now() })
      .where('id', '=', notificationId)
      .where('status', 'in', ['queued', 'scheduled'])
      .execute();

    let cursor = notification.dispatch_cursor;
    for (;;) {
      if (signal.aborted) throw new Error('worker is shutting down; the dispatch resumes from its cursor');
      const page = await pageDispatchTargets(db, {
        channelId: notification.channel_id,
        createdAtOrBefore: notification.created_at,
        after: cursor,
        limit: DISPATCH_PAGE_SIZE,
      });
      if (page.length === 0) break;
      const last = page[page.length - 1]!.id;
      const previous = cursor;
      const outcome = await db.transaction().execute(async (trx) => {
        const moved = await trx
          .updateTable('notifications')
          .set({ dispatch_cursor: last })
          .where('id', '=', notificationId)
          .where((eb) => (previous === null ? eb('dispatch_cursor', 'is', null) : eb('dispatch_cursor', '=', previous)))
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows) !== 1) throw new DispatchOvertakenError();
        const targeted = new Map<Platform, number>();
        for (const [platform, ids] of groupByPlatform(page)) {
          targeted.set(platform, ids.length);
          for (let start = 0; start < ids.length; start += SEND_BATCH_SIZE) {
            const subscriberIds = ids.slice(start, start + SEND_BATCH_SIZE);
            const payload: SendBatchPayload = { notificationId, platform, subscriberIds, round: 0 };
            await deps.queue.enqueue(trx, { kind: SEND_BATCH, payload, uniqueKey: `send:${notificationId}:${platform}:${subscriberIds[0]}:0` });
          }
        }
        await recordDispatchedPage(trx, { notificationId, targeted, cursor: last, now: deps.clock.now() });
        return 'enqueued' as const;
      }).catch((error: unknown) => {
        if (error instanceof DispatchOvertakenError) return 'overtaken' as const;
        throw error;
      });
      if (outcome === 'overtaken') {
        deps.logger.warn({ notificationId }, 'another worker took this dispatch over; leaving it to that worker');
        return;
      }
      cursor = last;
    }

    await db.transaction().execute(async (trx) => {
      const now = deps.clock.now();
      const targeted = await finishDispatch(trx, notificationId, now);
      await completeNotificationIfDone(trx, notificationId, now);
      deps.logger.info({ notificationId, targeted }, 'dispatch finished');
    });
  };
}

function groupByPlatform(page: Array<{ id: string; platform: Platform }>): Map<Platform, string[]> {
  const groups = new Map<Platform, string[]>();
  for (const subscriber of page) {
    const ids = groups.get(subscriber.platform) ?? [];
    ids.push(subscriber.id);
    groups.set(subscriber.platform, ids);
  }
  return groups;
}
