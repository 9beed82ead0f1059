import type { Kysely } from 'kysely';
import { parseAudience } from '../../domain/audience.ts';
import { withAudience } from '../audience-filter.ts';
import { hasPushToStartTokenFor } from './push-to-start-tokens-queries.ts';
import type { Database } from '../schema.ts';

/**
 * Who a Live Activity lifecycle push goes to, one page of subscriber ids at a time:
 * - iOS start: active subscribers with a push-to-start token for the activity's template (iOS 17.2+; one of its own,
 *   or one reported without a template: push-to-start-tokens-queries.ts), sent to that token;
 * - iOS update and end: subscribers whose device reported a per-activity token (live_activity_tokens);
 * - Android and web, every event: active subscribers of that platform that existed when the activity started, so the
 *   one ongoing notification (Android) or the notification replaced in place by tag (web) appears with the start and
 *   is updated by later events.
 * Only subscribers that existed at the start are targeted, as a notification targets those that existed when it was
 * accepted (`recipientCount` counts the same set), and of those only the start's audience when it named one.
 */
export async function pageLiveActivityTargets(
  db: Kysely<Database>,
  input: {
    activity: { id: string; channel_id: string; template: string; started_at: number | null; audience: string | null };
    event: 'start' | 'update' | 'end';
    platform: 'ios' | 'android' | 'web';
    after: string | null;
    limit: number;
  },
): Promise<string[]> {
  if (input.platform === 'ios' && input.event !== 'start') {
    let query = db
      .selectFrom('live_activity_tokens')
      .innerJoin('subscribers', 'subscribers.id', 'live_activity_tokens.subscriber_id')
      .select('live_activity_tokens.subscriber_id as id')
      .where('live_activity_tokens.live_activity_id', '=', input.activity.id)
      .where('subscribers.status', '=', 'active');
    if (input.after) query = query.where('live_activity_tokens.subscriber_id', '>', input.after);
    const rows = await query.orderBy('live_activity_tokens.subscriber_id').limit(input.limit).execute();
    return rows.map((row) => row.id);
  }
  let query = db
    .selectFrom('subscribers')
    .select('id')
    .where('channel_id', '=', input.activity.channel_id)
    .where('status', '=', 'active')
    .where('platform', '=', input.platform)
    .where('created_at', '<=', input.activity.started_at ?? 0);
  if (input.platform === 'ios') query = query.where(hasPushToStartTokenFor(input.activity.template));
  if (input.after) query = query.where('id', '>', input.after);
  // A targeted start (externalIds, subscriberIds or tags) reaches, and keeps updating, only its audience.
  const rows = await withAudience(query, parseAudience(input.activity.audience))
    .orderBy('id')
    .limit(input.limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * The iOS devices a start of `template` reaches, counted per reported iOS version (null: none reported), for the
 * broadcast part of the audience (`broadcast_count`). Few distinct versions, so one small grouped query.
 */
export async function countIosStartTargetsByOsVersion(
  db: Kysely<Database>,
  input: { channelId: string; template: string; audience: string | null },
): Promise<Array<{ osVersion: string | null; count: number }>> {
  const query = db
    .selectFrom('subscribers')
    .select((eb) => ['os_version', eb.fn.countAll<number>().as('count')])
    .where('channel_id', '=', input.channelId)
    .where('status', '=', 'active')
    .where('platform', '=', 'ios')
    .where(hasPushToStartTokenFor(input.template));
  // A targeted start counts only its audience, as pageLiveActivityTargets pages only it.
  const rows = await withAudience(query, parseAudience(input.audience)).groupBy('os_version').execute();
  return rows.map((row) => ({ osVersion: row.os_version, count: Number(row.count) }));
}
