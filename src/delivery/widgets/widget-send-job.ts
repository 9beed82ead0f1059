import type { Kysely } from 'kysely';
import type { JobRow } from '../../queue/job-types.ts';
import type { JobHandler } from '../../queue/worker-pool.ts';
import type { Database } from '../../store/schema.ts';
import { rememberApnsEnvironments } from '../../store/subscribers-queries.ts';
import { findWidgetTargets, forgetWidgetPushToken, type WidgetTarget } from '../../store/widget-push-tokens-queries.ts';
import { providersOfChannel, type SendDependencies } from '../channel-providers.ts';
import type { DeliveryDependencies } from '../dispatch-job.ts';
import type { DeliveryOutcome } from '../delivery-outcome.ts';
import { MAX_SEND_ROUNDS } from '../job-kinds.ts';
import {
  givenUpRecord,
  isLastAttempt,
  LeaseLostError,
  retryGroupDelayMs,
  sendEach,
  settleBatch,
  settleSentBatch,
  SettleBacklog,
  type BatchSettlement,
  type RecordedOutcomes,
} from '../send-batch.ts';
import { sendWidgetReloadJob, widgetSendJobKey, type WidgetSendPayload } from './widget-jobs.ts';

/**
 * A widget reload's fan-out, step two: sends the WidgetKit push (apns/apns-widget-push.ts) to one batch of widget push
 * tokens through the channel's app (channel-providers.ts), then settles the answers in ONE transaction that also
 * completes the job. The send loop, the outcome rules (retry rounds after APNs' Retry-After or the backoff for 429
 * TooManyRequests and 5xx, the misconfiguration guard) and the settling that never re-sends are the notification send
 * job's (send-batch.ts). A dead token (410 Unregistered or ExpiredToken, BadDeviceToken from both hosts) forgets the
 * widget push token only: the subscriber keeps its device token and stays subscribed. A 410 older than the device's
 * latest report of the token forgets nothing (docs/protocols.md 1.4).
 */
export function sendWidgetReloadHandler(deps: SendDependencies): JobHandler {
  const backlog = new SettleBacklog();
  return sendWidgetReloadJob.handler(async (payload, job, { owner, progressed }) => {
    const targets = await findWidgetTargets(deps.store.db, payload.subscriberIds);
    const byId = new Map(targets.map((target) => [target.id, target]));
    let recorded = payload.sent ?? backlog.recall(job.id);
    let settled: BatchSettlement;
    const registeredAt = (id: string) => byId.get(id)?.reportedAt ?? null;
    const settleRecorded = (outcome: BatchSettlement, answers: RecordedOutcomes) =>
      settleSentBatch({
        ...deps,
        job,
        owner,
        definition: sendWidgetReloadJob,
        payload,
        recorded: answers,
        backlog,
        write: settlement(deps, { job, owner }, payload, outcome, answers),
      });
    try {
      // Sent already, but settling it failed: settle those answers, never send again (send-batch.ts).
      if (!recorded) recorded = await sendBatch(deps, payload, byId, progressed);
      settled = settleBatch(new Map(Object.entries(recorded.outcomes)), { round: payload.round, registeredAt });
      if (settled.fatal) {
        const { reason, fix } = settled.fatal;
        deps.logger.error(
          { reloadId: payload.reloadId, reason, fix },
          `widget reload failed for the whole batch: ${fix}`,
        );
      }
      await settleRecorded(settled, recorded);
    } catch (error) {
      if (!isLastAttempt(job) || error instanceof LeaseLostError) throw error;
      deps.logger.error(
        { err: error, jobId: job.id, reloadId: payload.reloadId },
        'widget reload send job failed its last attempt; settling what it has',
      );
      const givenUp = givenUpRecord(payload.subscriberIds, recorded, deps.clock.now());
      settled = settleBatch(givenUp.outcomes, { round: MAX_SEND_ROUNDS, registeredAt });
      await settleRecorded(settled, givenUp.recorded);
    }
    const failed: Record<string, number> = {};
    for (const { reason } of settled.failed) failed[reason] = (failed[reason] ?? 0) + 1;
    deps.logger.info(
      {
        reloadId: payload.reloadId,
        round: payload.round,
        delivered: settled.delivered.length,
        dead: settled.dead.length,
        retry: settled.retry.reduce((sum, group) => sum + group.ids.length, 0),
        failed,
      },
      'widget reload batch sent',
    );
  });
}

async function sendBatch(
  deps: SendDependencies,
  payload: WidgetSendPayload,
  byId: Map<string, WidgetTarget>,
  progressed: (() => void) | undefined,
): Promise<RecordedOutcomes> {
  const sender = (await providersOfChannel(deps, payload.channelId)).ios;
  const sentTo: Record<string, string> = {};
  const sentAt = deps.clock.now();
  const outcomes = await sendEach(
    payload.subscriberIds,
    async (id): Promise<DeliveryOutcome | null> => {
      const target = byId.get(id);
      // Gone since the dispatch: unsubscribed, erased, or its widget token cleared or forgotten.
      if (!target || target.status !== 'active' || target.platform !== 'ios') return null;
      sentTo[id] = target.token;
      if (!sender.sendWidgetReload) return { kind: 'rejected', reason: 'ios:widgets_not_supported' };
      return sender.sendWidgetReload(target.token, target.apns_environment);
    },
    { onAnswer: progressed },
  );
  return { sentAt, outcomes: Object.fromEntries(outcomes), tokens: sentTo };
}

/** The batch's one transaction: completes the job, forgets what APNs called dead, enqueues the next round. */
function settlement(
  deps: DeliveryDependencies,
  lease: { job: JobRow; owner: string },
  payload: WidgetSendPayload,
  settled: BatchSettlement,
  recorded: RecordedOutcomes,
): (trx: Kysely<Database>) => Promise<void> {
  return async (trx) => {
    const now = deps.clock.now();
    if (!(await deps.queue.complete(trx, lease.job, lease.owner))) throw new LeaseLostError();
    // The host that took a push for a subscriber of unknown environment: the app build's, for every later push too.
    await rememberApnsEnvironments(trx, settled.learned);
    for (const { id } of settled.dead) {
      const token = recorded.tokens?.[id];
      if (token !== undefined) await forgetWidgetPushToken(trx, { subscriberId: id, token });
    }
    for (const group of settled.retry) {
      const { sent: _sent, ...rest } = payload;
      const next: WidgetSendPayload = { ...rest, subscriberIds: group.ids, round: payload.round + 1 };
      await sendWidgetReloadJob.enqueue(deps.queue, trx, next, {
        runAt: now + retryGroupDelayMs(group, next.round),
        uniqueKey: widgetSendJobKey(payload.reloadId, group.ids[0]!, next.round),
      });
    }
  };
}
