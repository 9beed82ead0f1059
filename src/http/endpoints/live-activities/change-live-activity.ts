import type { FastifyReply } from 'fastify';
import { enqueueLiveActivityPush, scheduleAutoEnd } from '../../../delivery/live-activities/live-activity-jobs.ts';
import {
  liveActivityPushOf,
  recordLiveActivityChange,
} from '../../../delivery/live-activities/live-activity-snapshot.ts';
import {
  alertProblems,
  canonicalAlert,
  relevanceOf,
  type LiveActivityAlert,
  type LiveActivityPriority,
} from '../../../domain/live-activities/live-activity-alert.ts';
import {
  effectiveStatus,
  LIVE_ACTIVITY_DISMISS_MAX_MS,
} from '../../../domain/live-activities/live-activity-lifecycle.ts';
import {
  mergeTemplateFields,
  validateTemplateFields,
  type TemplateFields,
  type TemplateName,
} from '../../../domain/live-activities/live-activity-templates.ts';
import type { FieldProblem } from '../../../domain/schema-errors.ts';
import {
  claimLiveActivityEvent,
  lockScheduledLiveActivity,
  saveLiveActivityState,
  type LiveActivityRow,
} from '../../../store/live-activities/live-activities-queries.ts';
import { parseJson } from '../../../store/store-errors.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { chargeQuota, setQuotaHeaders } from '../../quota.ts';
import { activityEnded, activityNotStarted, findVisibleLiveActivity } from './live-activity-access.ts';
import { assertLiveActivityPayloadsFit } from './live-activity-payload-size.ts';
import { endStatusProblems, parseTime, readTiming, type TimingInput } from './live-activity-timing.ts';

export type LiveActivityChange =
  | ({
      event: 'update';
      fields: TemplateFields;
      alert?: LiveActivityAlert | undefined;
      priority?: LiveActivityPriority | undefined;
      relevanceScore?: number | undefined;
    } & TimingInput)
  | {
      event: 'end';
      fields?: TemplateFields | undefined;
      alert?: LiveActivityAlert | undefined;
      dismissAt?: string | undefined;
      priority?: LiveActivityPriority | undefined;
      relevanceScore?: number | undefined;
    };

/**
 * An update or an end, the same way as a notification is accepted (accept-notification.ts): the checks a caller can
 * fix, then ONE transaction that claims the event's APNs timestamp (locking the activity), merges and validates the
 * fields, charges the quota and writes the new state, the `live_activity.updated`/`ended` event and the dispatch job
 * of the push. Errors, in order: 400 (times, the alert's language tags), 404, 409 activity_ended, 400 (merged
 * fields), 413, 429.
 */
export async function changeLiveActivity(
  deps: AppDependencies,
  auth: AuthContext,
  reply: FastifyReply,
  id: string,
  change: LiveActivityChange,
): Promise<LiveActivityRow> {
  const now = deps.clock.now();
  const times = checkChange(change, now);
  const existing = await findVisibleLiveActivity(deps, auth, id);
  const { status } = effectiveStatus(existing, now);
  if (status === 'ended' || status === 'canceled') throw activityEnded(existing, now);
  if (status === 'scheduled') {
    if (change.event === 'end') throw activityNotStarted(existing);
    const changed = await changeScheduledLiveActivity(deps, auth, existing.id, change, now);
    // Started (or canceled) since the read above: the change applies to what it is now.
    return changed ?? changeLiveActivity(deps, auth, reply, id, change);
  }

  return deps.store.db.transaction().execute(async (trx) => {
    const current = await claimLiveActivityEvent(trx, { accountId: auth.accountId, id: existing.id, now });
    // Ended by a concurrent call (or its 8 hours ran out) since the check above.
    if (!current) throw activityEnded(existing, now);
    const { state, alert } = stateAfter(current, change, times, now);
    const row: LiveActivityRow = {
      ...state,
      status: change.event === 'end' ? 'ended' : 'active',
      ended_at: change.event === 'end' ? now : null,
      dismiss_at: change.event === 'end' ? times.dismissAt : null,
    };
    const push = liveActivityPushOf(row, change.event, alert, change.priority ?? null);
    assertLiveActivityPayloadsFit(push, deps.config.baseUrl);
    const quota = await chargeQuota(trx, auth.accountId, now);
    await saveLiveActivityState(trx, row);
    await recordLiveActivityChange(
      trx,
      row,
      change.event === 'update' ? { type: 'updated', alert } : { type: 'ended', reason: 'requested' },
      now,
    );
    await enqueueLiveActivityPush(trx, deps.queue, push);
    if (row.status === 'active') await scheduleAutoEnd(trx, deps.queue, row, now);
    setQuotaHeaders(reply, quota);
    return row;
  });
}

/**
 * An update of a scheduled activity (docs/live-activities.md, "Scheduled starts"): what it will start with. The fields
 * are merged and validated as an update's, the alert replaces the start's, staleAt / staleAfterSeconds and the auto-end
 * are the start's (counted from sendAt), and the start's payloads must still fit. Nothing is pushed, no event is
 * recorded and nothing is charged: the start, charged when it was accepted, carries it all. Undefined when the
 * activity is no longer scheduled once locked.
 */
async function changeScheduledLiveActivity(
  deps: AppDependencies,
  auth: AuthContext,
  id: string,
  change: Extract<LiveActivityChange, { event: 'update' }>,
  now: number,
): Promise<LiveActivityRow | undefined> {
  return deps.store.db.transaction().execute(async (trx) => {
    const current = await lockScheduledLiveActivity(trx, { accountId: auth.accountId, id, now });
    if (!current) return undefined;
    const startAt = current.send_at!;
    const { state: row } = stateAfter(current, change, checkChange(change, startAt), startAt);
    assertLiveActivityPayloadsFit(
      liveActivityPushOf(row, 'start', parseJson<LiveActivityAlert>(row.alert)),
      deps.config.baseUrl,
    );
    await saveLiveActivityState(trx, row);
    return row;
  });
}

/**
 * What `change` makes of the activity's content at `at` (now, or a scheduled activity's start): the fields merged and
 * validated, the end status an auto-end would show checked against them, the alert (the column keeps the latest one
 * shown), an update's staleAt (it belongs to the content it came with, as on iOS), the relevance and the auto-end.
 * The caller sets what the event does to the activity's status. Throws 400 for fields or an end status that do not fit
 * the template.
 */
function stateAfter(
  current: LiveActivityRow,
  change: LiveActivityChange,
  times: ChangeTimes,
  at: number,
): { state: LiveActivityRow; alert: LiveActivityAlert | null } {
  const template = current.template as TemplateName;
  const currentFields = JSON.parse(current.fields) as TemplateFields;
  const checked = validateTemplateFields(
    template,
    change.fields ? mergeTemplateFields(currentFields, change.fields) : currentFields,
    at,
  );
  if (!checked.ok) throw validationFailed(checked.problems);
  const autoEnd = change.event === 'update' ? times.autoEnd : undefined;
  const endStatus = endStatusProblems(autoEnd?.status, { template, fields: checked.fields, now: at });
  if (endStatus.length > 0) throw validationFailed(endStatus);
  const alert = change.alert ? canonicalAlert(change.alert) : null;
  return {
    alert,
    state: {
      ...current,
      fields: JSON.stringify(checked.fields),
      alert: alert ? JSON.stringify(alert) : current.alert,
      stale_at: change.event === 'update' ? times.staleAt : current.stale_at,
      relevance_score: relevanceOf(change, current.relevance_score),
      auto_end_after_ms: autoEnd ? autoEnd.afterMs : current.auto_end_after_ms,
      auto_end_status: autoEnd ? autoEnd.status : current.auto_end_status,
    },
  };
}

interface ChangeTimes {
  staleAt: number | null;
  dismissAt: number | null;
  autoEnd: ReturnType<typeof readTiming>['autoEnd'];
}

/**
 * The alert's language tags (domain/live-activities/live-activity-alert.ts); staleAt or staleAfterSeconds and the
 * auto-end (update, live-activity-timing.ts); dismissAt (end): any time up to 4 hours ahead, a past one dismisses at
 * once.
 */
function checkChange(change: LiveActivityChange, now: number): ChangeTimes {
  const problems: FieldProblem[] = change.alert ? alertProblems(change.alert) : [];
  const timing = change.event === 'update' ? readTiming(change, now, problems) : { staleAt: null, autoEnd: undefined };
  const dismissAt = change.event === 'end' ? parseTime('dismissAt', change.dismissAt, problems) : null;
  if (dismissAt !== null && dismissAt > now + LIVE_ACTIVITY_DISMISS_MAX_MS) {
    problems.push({
      field: 'dismissAt',
      message: 'can be at most 4 hours after the end: iOS removes an ended activity by then anyway',
    });
  }
  if (problems.length > 0) throw validationFailed(problems);
  return { staleAt: timing.staleAt, dismissAt, autoEnd: timing.autoEnd };
}
