import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Widget push tokens (WidgetKit, iOS 26; docs/live-activities.md "Widgets"): the token WidgetKit hands an app for its
 * widgets (`WidgetPushInfo.token`, docs/protocols.md 2.6), one per iOS subscriber, reported as `widgetPushToken` on
 * POST /subscribers and PATCH /subscribers/{id}. It is separate from the subscriber's own device token: a widget reload
 * goes to it, and APNs calling it dead forgets only it.
 */

/** Stores (or replaces) the subscriber's widget push token; the report's time is what a later APNs 410 is judged against. */
export async function saveWidgetPushToken(
  trx: Kysely<Database>,
  input: { subscriberId: string; channelId: string; token: string; now: number },
): Promise<void> {
  await trx
    .insertInto('widget_push_tokens')
    .values({
      subscriber_id: input.subscriberId,
      channel_id: input.channelId,
      token: input.token,
      created_at: input.now,
      updated_at: input.now,
    })
    .onConflict((conflict) =>
      conflict.column('subscriber_id').doUpdateSet({ token: input.token, updated_at: input.now }),
    )
    .execute();
}

/** Clears the subscriber's widget push token (PATCH with `widgetPushToken: null`). */
export async function clearWidgetPushToken(trx: Kysely<Database>, subscriberId: string): Promise<void> {
  await trx.deleteFrom('widget_push_tokens').where('subscriber_id', '=', subscriberId).execute();
}

/** Whether each of these subscribers has a widget push token, by id (the subscriber views show it). */
export async function subscribersWithWidgetPushToken(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('widget_push_tokens')
    .select('subscriber_id')
    .where('subscriber_id', 'in', [...ids])
    .execute();
  return new Set(rows.map((row) => row.subscriber_id));
}

/** The active iOS subscribers of a channel with a widget push token: who a widget reload reaches. */
function widgetTargets(db: Kysely<Database>, channelId: string) {
  return db
    .selectFrom('widget_push_tokens')
    .innerJoin('subscribers', 'subscribers.id', 'widget_push_tokens.subscriber_id')
    .where('widget_push_tokens.channel_id', '=', channelId)
    .where('subscribers.status', '=', 'active')
    .where('subscribers.platform', '=', 'ios');
}

/** How many devices a widget reload of the channel reaches now (the 202's `recipientCount`). */
export async function countWidgetReloadTargets(db: Kysely<Database>, channelId: string): Promise<number> {
  const row = await widgetTargets(db, channelId)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** One page of those subscribers' ids, in id order after `after` (the reload's dispatch). */
export async function pageWidgetReloadTargets(
  db: Kysely<Database>,
  input: { channelId: string; after: string | null; limit: number },
): Promise<string[]> {
  let query = widgetTargets(db, input.channelId).select('widget_push_tokens.subscriber_id');
  if (input.after !== null) query = query.where('widget_push_tokens.subscriber_id', '>', input.after);
  const rows = await query.orderBy('widget_push_tokens.subscriber_id').limit(input.limit).execute();
  return rows.map((row) => row.subscriber_id);
}

/** What a widget send batch reads per subscriber: where to push, whether it still may, and the host it belongs to. */
export interface WidgetTarget {
  id: string;
  status: 'active' | 'unsubscribed';
  platform: 'ios' | 'android' | 'web';
  apns_environment: 'production' | 'sandbox' | null;
  token: string;
  /** When the device last reported the token (an APNs 410 from before it does not forget it). */
  reportedAt: number;
}

export async function findWidgetTargets(db: Kysely<Database>, ids: readonly string[]): Promise<WidgetTarget[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('widget_push_tokens')
    .innerJoin('subscribers', 'subscribers.id', 'widget_push_tokens.subscriber_id')
    .select([
      'subscribers.id',
      'subscribers.status',
      'subscribers.platform',
      'subscribers.apns_environment',
      'widget_push_tokens.token',
      'widget_push_tokens.updated_at',
    ])
    .where('widget_push_tokens.subscriber_id', 'in', [...ids])
    .execute();
  return rows.map(({ updated_at, ...row }) => ({ ...row, reportedAt: updated_at }));
}

/**
 * Forgets a widget push token APNs called dead (410 Unregistered or ExpiredToken, 400 BadDeviceToken): that token
 * only, and only if the device has not reported another one since. The subscriber keeps its device token and stays
 * subscribed; the app reports a new widget token when WidgetKit gives it one (`pushTokenDidChange`).
 */
export async function forgetWidgetPushToken(
  trx: Kysely<Database>,
  input: { subscriberId: string; token: string },
): Promise<void> {
  await trx
    .deleteFrom('widget_push_tokens')
    .where('subscriber_id', '=', input.subscriberId)
    .where('token', '=', input.token)
    .execute();
}
