import type { Logger } from 'pino';
import { parseAudience } from '../domain/audience.ts';
import type { Clock } from '../domain/clock.ts';
import type { Platform } from '../domain/device-token.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { JobHandler } from '../queue/worker-pool.ts';
import { finishDispatch, pageDispatchTargets, recordBatchOutcomes, recordDispatchedPage, type DispatchTarget } from '../store/deliveries-store.ts';
import type { Store } from '../store/database.ts';
import { DISPATCH_PAGE_SIZE, dispatchNotificationJob, SEND_BATCH_SIZE, sendBatchJob, type DispatchPayload, type SendBatchPayload } from './job-kinds.ts';
import { completeNotificationIfDone } from './notification-completion.ts';
import { isPushExpired, pushExpiresAt } from './push-expiry.ts';

export interface DeliveryDependencies {
  store: Store;
  queue: JobQueue;
  clock: Clock;
  logger: Logger;
}

/** Thrown inside a page's transaction when this worker's lease was lost: another worker owns the dispatch now. */
class LeaseLostError extends Error {}

/**
 * Fan-out, step one: pages the subscribers by id (all of the channel's or the send's audience, or one time zone's for
 * local-time delivery) and enqueues send jobs of up to 500 tokens per platform, each carrying the pushes' absolute expiry. Each page's send jobs and the dispatch's cursor
 * (kept in its own job payload) commit together, guarded by the lease, so a dispatch that dies resumes after the
 * last page it enqueued and no page is ever enqueued twice. A dispatch that runs after its notification's
 * ttlSeconds has passed (the server was down at the due time) records its subscribers as failed with `expired`.
 */
export function dispatchNotificationHandler(deps: DeliveryDependencies): JobHandler {
  return dispatchNotificationJob.handler(async (first, job, { owner, signal }) => {
    let payload = first;
    const { db } = deps.store;
    const notification = await db.selectFrom('notifications').selectAll().where('id', '=', payload.notificationId).executeTakeFirst();
    if (!notification || notification.status === 'sent' || notification.status === 'failed') return;
    await db
      .updateTable('notifications')
      .set({ status: 'sending', updated_at: deps.clock.now() })
      .where('id', '=', notification.id)
      .where('status', 'in', ['queued', 'scheduled'])
      .execute();
    const dueAt = payload.dueAt ?? notification.send_at ?? notification.created_at;
    // Fixed here once, for every send job and retry round of this dispatch (push-expiry.ts).
    const expiresAt = pushExpiresAt(notification.ttl_seconds, dueAt);
    // ttlSeconds counts from when the dispatch was due: a server that was down longer than that must not send late.
    const expired = isPushExpired({ expiresAt, ttlSeconds: notification.ttl_seconds, round: 0, now: deps.clock.now() });
    // A targeted send pages only its audience (externalIds, subscriberIds or tags), stored with it at acceptance.
    const audience = parseAudience(notification.audience);

    for (;;) {
      if (signal.aborted) throw new Error('worker is shutting down; the dispatch resumes from its cursor');
      const page = await pageDispatchTargets(db, {
        channelId: notification.channel_id,
        createdAtOrBefore: notification.created_at,
        timezone: payload.timezone,
        audience,
        after: payload.cursor ?? null,
        limit: DISPATCH_PAGE_SIZE,
      });
      if (page.length === 0) break;
      const next: DispatchPayload = { ...payload, cursor: page[page.length - 1]!.id };
      const outcome = await db
        .transaction()
        .execute(async (trx) => {
          if (!(await dispatchNotificationJob.updatePayload(deps.queue, trx, job, owner, next))) throw new LeaseLostError();
          const now = deps.clock.now();
          const targeted = countByPlatform(page);
          await recordDispatchedPage(trx, { notificationId: notification.id, targeted, now });
          if (expired) {
            await recordBatchOutcomes(trx, {
              notificationId: notification.id,
              delivered: new Map(),
              failures: page.map((target) => ({ subscriberId: target.id, platform: target.platform, reason: 'expired' })),
              now,
            });
            return 'paged' as const;
          }
          for (const [platform, ids] of groupByPlatform(page)) {
            for (let start = 0; start < ids.length; start += SEND_BATCH_SIZE) {
              const subscriberIds = ids.slice(start, start + SEND_BATCH_SIZE);
              const batch: SendBatchPayload = { notificationId: notification.id, platform, subscriberIds, round: 0, expiresAt };
              await sendBatchJob.enqueue(deps.queue, trx, batch, { uniqueKey: `send:${notification.id}:${platform}:${subscriberIds[0]}:0` });
            }
          }
          return 'paged' as const;
        })
        .catch((error: unknown) => {
          if (error instanceof LeaseLostError) return 'lease_lost' as const;
          throw error;
        });
      if (outcome === 'lease_lost') {
        deps.logger.warn({ notificationId: notification.id, jobId: job.id }, 'dispatch lease lost; another worker continues it');
        return;
      }
      payload = next;
    }

    await db.transaction().execute(async (trx) => {
      if (!(await deps.queue.complete(trx, job, owner))) throw new LeaseLostError();
      const now = deps.clock.now();
      if (expired) {
        await trx.updateTable('notifications').set({ failure_reason: 'expired' }).where('id', '=', notification.id).execute();
      }
      const targeted = await finishDispatch(trx, notification.id, now);
      if (targeted !== null) await completeNotificationIfDone(trx, notification.id, now);
      deps.logger.info({ notificationId: notification.id, timezone: payload.timezone, expired, targeted }, 'dispatch finished');
    });
  });
}

function countByPlatform(page: DispatchTarget[]): Map<Platform, number> {
  const counts = new Map<Platform, number>();
  for (const target of page) counts.set(target.platform, (counts.get(target.platform) ?? 0) + 1);
  return counts;
}

function groupByPlatform(page: DispatchTarget[]): Map<Platform, string[]> {
  const groups = new Map<Platform, string[]>();
  for (const target of page) {
    const ids = groups.get(target.platform) ?? [];
    ids.push(target.id);
    groups.set(target.platform, ids);
  }
  return groups;
}
