import type { Kysely } from 'kysely';
import { toIso } from '../../domain/clock.ts';
import type { LiveActivityAlert, LiveActivityPriority } from '../../domain/live-activities/live-activity-alert.ts';
import { liveActivityExpiresAt } from '../../domain/live-activities/live-activity-lifecycle.ts';
import type { TemplateFields, TemplateName } from '../../domain/live-activities/live-activity-templates.ts';
import { recordEvent } from '../../store/events-queries.ts';
import type { LiveActivityRow } from '../../store/live-activities/live-activities-queries.ts';
import type { Database } from '../../store/schema.ts';
import type { LiveActivityEvent, LiveActivityPush } from './live-activity-push.ts';

/**
 * What one lifecycle event writes besides the activity row, built from the row as that event left it: the push the
 * delivery jobs carry, and the `live_activity.*` event for webhooks. The API and the 8-hour expiry use the same two.
 */
export function liveActivityPushOf(
  row: LiveActivityRow,
  event: LiveActivityEvent,
  alert: LiveActivityAlert | null,
  priority: LiveActivityPriority | null = null,
): LiveActivityPush {
  return {
    priority,
    activityId: row.id,
    template: row.template as TemplateName,
    event,
    timestamp: row.push_timestamp,
    fields: JSON.parse(row.fields) as TemplateFields,
    alert,
    staleAt: event === 'end' ? null : row.stale_at,
    dismissAt: event === 'end' ? row.dismiss_at : null,
    relevanceScore: row.relevance_score,
    expiresAt: liveActivityExpiresAt(row.started_at ?? row.send_at ?? row.created_at),
  };
}

/**
 * Why an activity ended: the caller's end, the system's after 8 hours, or Clarion's after it heard nothing for its
 * endAfterSecondsWithoutUpdate.
 */
export type LiveActivityEndReason = 'requested' | 'expired' | 'inactive';

/** Records `live_activity.updated` or `live_activity.ended` in the transaction that made the change. */
export async function recordLiveActivityChange(
  trx: Kysely<Database>,
  row: LiveActivityRow,
  change: { type: 'updated'; alert: LiveActivityAlert | null } | { type: 'ended'; reason: LiveActivityEndReason },
  now: number,
): Promise<void> {
  const common = {
    liveActivityId: row.id,
    channelCode: row.channel_code,
    template: row.template,
    fields: JSON.parse(row.fields) as unknown,
  };
  const data =
    change.type === 'updated'
      ? { ...common, alert: change.alert, staleAt: row.stale_at === null ? null : toIso(row.stale_at) }
      : {
          ...common,
          reason: change.reason,
          endedAt: toIso(row.ended_at ?? now),
          dismissAt: row.dismiss_at === null ? null : toIso(row.dismiss_at),
        };
  await recordEvent(trx, {
    accountId: row.account_id,
    type: change.type === 'updated' ? 'live_activity.updated' : 'live_activity.ended',
    data,
    now,
  });
}
