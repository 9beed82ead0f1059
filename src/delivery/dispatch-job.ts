import type { Logger } from 'pino';
import { parseAudience } from '../domain/audience.ts';
import type { Clock } from '../domain/clock.ts';
import type { Platform } from '../domain/device-token.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { Kysely } from 'kysely';
import type { JobRow } from '../queue/job-types.ts';
import { COMPLETED_BY_HANDLER, type JobHandler } from '../queue/worker-pool.ts';
import {
  fixTargetedCount,
  pageDispatchTargets,
  recordBatchOutcomes,
  recordDispatchedPage,
  type DispatchTarget,
} from '../store/deliveries-queries.ts';
import type { Store } from '../store/database.ts';
import {
  findNotificationWithChannelApp,
  recordAppliedThrottle,
  type NotificationWithChannelRules,
} from '../store/notifications-queries.ts';
import { quietHoursOf } from '../domain/quiet-hours.ts';
import { pacedDueAt, throttleBatchSize } from '../domain/throttle.ts';
import { frequencyCapOf } from '../domain/frequency-cap.ts';
import type { Database } from '../store/schema.ts';
import {
  DISPATCH_PAGE_SIZE,
  dispatchNotificationJob,
  SEND_BATCH_SIZE,
  sendBatchJob,
  type DispatchPayload,
  type SendBatchPayload,
} from './job-kinds.ts';
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
 * local-time delivery) and enqueues send jobs of up to 500 tokens per platform, each carrying the pushes' absolute expiry
 * and the channel's app as the dispatch found it. Each page's send jobs and the dispatch's cursor
 * (kept in its own job payload) commit together, guarded by the lease, so a dispatch that dies resumes after the
 * last page it enqueued and no page is ever enqueued twice. A dispatch that runs after its notification's
 * ttlSeconds has passed (the server was down at the due time) records its subscribers as failed with `expired`.
 *
 * The small notification (most of them: one user's devices) is the latency path, where each
 * transaction counted (docs/performance.md, "Latency to first push"): a page shorter than the page size is the last, so
 * its transaction also completes and finishes the dispatch (no second read, no cursor, no second commit), and a last
 * page of at most one send batch per platform has its send jobs enqueued already leased to this worker, which runs
 * them once that transaction commits: no claim, no wait for one (at most one job per platform beyond the worker's
 * concurrency, for as long as they send). A crash before they settle leaves them to the
 * rescuer, as for any claimed send job; settling still checks their lease.
 */
export function dispatchNotificationHandler(deps: DeliveryDependencies): JobHandler {
  return dispatchNotificationJob.handler(async (first, job, { owner, signal, leased }) => {
    let payload = first;
    const { db } = deps.store;
    // With its channel's app (one statement): the send jobs carry it, so they never read the channel (job-kinds.ts).
    const notification = await findNotificationWithChannelApp(db, payload.notificationId);
    if (!notification || notification.status === 'sent' || notification.status === 'failed') return;
    const appId = notification.channel_app_id ?? null;
    const frequencyCap = capOfSend(notification);
    const quietHours = quietHoursOfSend(notification);
    const receipts = Number(notification.account_receipts_enabled ?? 0) === 1;
    const dueAt = payload.dueAt ?? notification.send_at ?? notification.created_at;
    // Fixed here once, for every send job and retry round of this dispatch (push-expiry.ts).
    const expiresAt = pushExpiresAt(notification.ttl_seconds, dueAt);
    // ttlSeconds counts from when the dispatch was due: a server that was down longer than that must not send late.
    const expired = isPushExpired({ expiresAt, ttlSeconds: notification.ttl_seconds, round: 0, now: deps.clock.now() });
    // A targeted send pages only its audience (externalIds, subscriberIds or tags), stored with it at acceptance.
    const audience = parseAudience(notification.audience);
    // A throttled send spreads its send jobs from when the dispatch first ran (domain/throttle.ts); one that gives no
    // throttle takes its app's, recorded on it so the Notification shows it.
    const throttle = notification.throttle_per_minute ?? notification.app_throttle_per_minute;
    if (throttle !== null && !payload.paced) payload = { ...payload, paced: { from: deps.clock.now(), pushes: 0 } };
    if (throttle !== null && notification.throttle_per_minute === null)
      await recordAppliedThrottle(db, { notificationId: notification.id, throttlePerMinute: throttle });
    const batchSize = throttle === null ? SEND_BATCH_SIZE : throttleBatchSize(throttle, SEND_BATCH_SIZE);

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
      const last = page.length < DISPATCH_PAGE_SIZE;
      const groups = groupByPlatform(page);
      const sendHere =
        leased &&
        last &&
        !expired &&
        throttle === null &&
        [...groups.values()].every((ids) => ids.length <= SEND_BATCH_SIZE)
          ? leased
          : null;
      const next: DispatchPayload = {
        ...payload,
        cursor: page.at(-1)?.id ?? payload.cursor ?? null,
        ...(payload.paced ? { paced: { ...payload.paced, pushes: payload.paced.pushes + page.length } } : {}),
      };
      const outcome = await db
        .transaction()
        .execute(async (trx) => {
          const owned = last
            ? await deps.queue.complete(trx, job, owner)
            : await dispatchNotificationJob.updatePayload(deps.queue, trx, job, owner, next);
          if (!owned) throw new LeaseLostError();
          const now = deps.clock.now();
          const sendNow: JobRow[] = [];
          const allDispatched = await recordDispatchedPage(trx, {
            notificationId: notification.id,
            targeted: countByPlatform(page),
            now,
            last,
          });
          if (expired) {
            await recordBatchOutcomes(trx, {
              notificationId: notification.id,
              delivered: new Map(),
              failures: page.map((target) => ({
                subscriberId: target.id,
                platform: target.platform,
                reason: 'expired',
              })),
              now,
            });
          } else {
            // A paced batch is due when the pushes before it have had their time at the rate asked for.
            let pushesBefore = payload.paced?.pushes ?? 0;
            for (const [platform, ids] of groups) {
              for (let start = 0; start < ids.length; start += batchSize) {
                const subscriberIds = ids.slice(start, start + batchSize);
                const runAt =
                  throttle !== null && payload.paced
                    ? pacedDueAt(payload.paced.from, pushesBefore, throttle)
                    : undefined;
                pushesBefore += subscriberIds.length;
                const batch: SendBatchPayload = {
                  notificationId: notification.id,
                  platform,
                  subscriberIds,
                  round: 0,
                  expiresAt,
                  appId,
                  frequencyCap,
                  quietHours,
                  receipts,
                };
                const uniqueKey = `send:${notification.id}:${platform}:${subscriberIds[0]}:0`;
                if (!sendHere)
                  await sendBatchJob.enqueue(deps.queue, trx, batch, {
                    uniqueKey,
                    ...(runAt !== undefined ? { runAt } : {}),
                  });
                else {
                  const leasedJob = await sendBatchJob.enqueueLeased(
                    deps.queue,
                    trx,
                    batch,
                    { owner, leaseMs: sendHere.leaseMs },
                    { uniqueKey },
                  );
                  if (leasedJob) sendNow.push(leasedJob);
                }
              }
            }
          }
          if (last)
            await finish(deps, trx, {
              notificationId: notification.id,
              timezone: payload.timezone,
              expired,
              allDispatched,
              settlesLater: sendNow.length > 0,
              now,
            });
          return { sendNow };
        })
        .catch((error: unknown) => {
          if (error instanceof LeaseLostError) return 'lease_lost' as const;
          throw error;
        });
      if (outcome === 'lease_lost') {
        deps.logger.warn(
          { notificationId: notification.id, jobId: job.id },
          'dispatch lease lost; another worker continues it',
        );
        return;
      }
      if (last) {
        if (sendHere) sendHere.run(outcome.sendNow);
        return COMPLETED_BY_HANDLER;
      }
      payload = next;
    }
  });
}

/**
 * The dispatch's last page, in its transaction: once every dispatch has finished, the notification's targeted count
 * is fixed and, unless send jobs of this transaction will settle later (`settlesLater`), the notification completes
 * if every recipient already has an outcome. Each settle checks completion after its own outcomes
 * (send-batch-job.ts), so with send jobs freshly enqueued by this transaction the check here could never succeed: they
 * are the pushes still pending. Skipping it is one statement fewer per small notification (docs/performance.md, "Latency to first push").
 */
async function finish(
  deps: DeliveryDependencies,
  trx: Kysely<Database>,
  input: {
    notificationId: string;
    timezone: string | null | undefined;
    expired: boolean;
    allDispatched: boolean;
    settlesLater: boolean;
    now: number;
  },
): Promise<void> {
  const { notificationId, expired, now } = input;
  if (expired)
    await trx
      .updateTable('notifications')
      .set({ failure_reason: 'expired' })
      .where('id', '=', notificationId)
      .execute();
  const targeted = input.allDispatched ? await fixTargetedCount(trx, notificationId, now) : null;
  if (targeted !== null && !input.settlesLater) await completeNotificationIfDone(trx, notificationId, now);
  deps.logger.info({ notificationId, timezone: input.timezone, expired, targeted }, 'dispatch finished');
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

/**
 * The frequency cap the notification's send jobs observe (job-kinds.ts, `frequencyCap`): its channel's, enforced
 * unless the send ignores it; none for a silent push, which the cap neither stops nor counts (domain/frequency-cap.ts).
 */
function capOfSend(notification: NotificationWithChannelRules): SendBatchPayload['frequencyCap'] {
  const cap = frequencyCapOf(notification);
  if (cap === null || notification.content_available === 1) return null;
  return { ...cap, enforce: notification.ignore_frequency_cap !== 1 };
}

/**
 * The quiet hours the notification's send jobs observe (job-kinds.ts, `quietHours`): its channel's, unless the send
 * ignores them or is silent (domain/quiet-hours.ts).
 */
function quietHoursOfSend(notification: NotificationWithChannelRules): SendBatchPayload['quietHours'] {
  const quiet = quietHoursOf(notification);
  if (quiet === null || notification.ignore_quiet_hours === 1 || notification.content_available === 1) return null;
  return { ...quiet, defaultZone: notification.account_default_timezone ?? 'UTC' };
}
