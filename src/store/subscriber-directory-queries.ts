import { sql, type Kysely } from 'kysely';
import type { Platform } from '../domain/device-token.ts';
import type { Database } from './schema.ts';
import type { Subscriber } from './subscribers-queries.ts';

/**
 * Reading and editing subscribers as the account sees them (GET/PATCH /subscribers, GET /users/{externalId}): a
 * filtered list, the details a device may change, its tags and its last failure. Registration, unsubscribing and the
 * delivery engine's reads stay in subscribers-queries.ts.
 */

export interface SubscriberFilter {
  accountId: string;
  /** Only these channels (the filter's one, or a scoped key's); null = all of the account's. */
  channelIds: string[] | null;
  platform: Platform | null;
  status: Subscriber['status'] | null;
  externalId: string | null;
  /** The start of a subscriber id ("sub_01h4"): what the dashboard's search box takes. */
  idPrefix?: string | null;
  tag: string | null;
  createdBefore: number | null;
  createdAfter: number | null;
  /** Newest first: return ids below this one. */
  before: string | null;
  limit: number;
}

/** Newest first, paged by id (ids sort by creation time). */
export async function listSubscribers(db: Kysely<Database>, filter: SubscriberFilter): Promise<Subscriber[]> {
  if (filter.channelIds?.length === 0) return [];
  let query = db.selectFrom('subscribers').selectAll().where('account_id', '=', filter.accountId);
  if (filter.channelIds) query = query.where('channel_id', 'in', filter.channelIds);
  if (filter.platform) query = query.where('platform', '=', filter.platform);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.externalId !== null) query = query.where('external_id', '=', filter.externalId);
  // substr rather than LIKE: "_" in ids is a LIKE wildcard, and substr means the same on both dialects.
  if (filter.idPrefix) query = query.where(sql<string>`substr(id, 1, ${filter.idPrefix.length})`, '=', filter.idPrefix);
  if (filter.tag !== null) {
    const tag = filter.tag;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('subscriber_tags')
          .select('tag')
          .whereRef('subscriber_tags.subscriber_id', '=', 'subscribers.id')
          .where('tag', '=', tag),
      ),
    );
  }
  if (filter.createdBefore !== null) query = query.where('created_at', '<', filter.createdBefore);
  if (filter.createdAfter !== null) query = query.where('created_at', '>', filter.createdAfter);
  if (filter.before) query = query.where('id', '<', filter.before);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

/** The tags of each of `subscriberIds`, sorted (one query for a page). */
export async function tagsOf(db: Kysely<Database>, subscriberIds: readonly string[]): Promise<Map<string, string[]>> {
  const tags = new Map<string, string[]>(subscriberIds.map((id) => [id, []]));
  if (subscriberIds.length === 0) return tags;
  const rows = await db
    .selectFrom('subscriber_tags')
    .select(['subscriber_id', 'tag'])
    .where('subscriber_id', 'in', [...subscriberIds])
    .orderBy('tag')
    .execute();
  for (const row of rows) tags.get(row.subscriber_id)?.push(row.tag);
  return tags;
}

export interface LastFailure {
  notificationId: string;
  reason: string;
  at: number;
}

/** The subscriber's most recent failed push, or null. */
export async function lastFailureOf(db: Kysely<Database>, subscriberId: string): Promise<LastFailure | null> {
  return (await recentFailuresOf(db, subscriberId, 1))[0] ?? null;
}

/**
 * The subscriber's latest failed pushes, newest first (skips are not failures): read from the index on
 * (subscriber_id, created_at).
 */
export async function recentFailuresOf(
  db: Kysely<Database>,
  subscriberId: string,
  limit: number,
): Promise<LastFailure[]> {
  const rows = await db
    .selectFrom('delivery_failures')
    .select(['notification_id', 'reason', 'created_at'])
    .where('subscriber_id', '=', subscriberId)
    .where('outcome', '=', 'failed')
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ notificationId: row.notification_id, reason: row.reason, at: row.created_at }));
}

export interface SubscriberChanges {
  externalId?: string | null;
  timezone?: string | null;
  locale?: string | null;
  /** Replaces the subscriber's tags. */
  tags?: string[];
}

/** Applies the changes a PATCH carries (absent fields stay as they are). Runs inside the caller's transaction. */
export async function updateSubscriberDetails(
  trx: Kysely<Database>,
  subscriberId: string,
  changes: SubscriberChanges,
  now: number,
): Promise<void> {
  await trx
    .updateTable('subscribers')
    .set({
      ...(changes.externalId !== undefined ? { external_id: changes.externalId } : {}),
      ...(changes.timezone !== undefined ? { timezone: changes.timezone } : {}),
      ...(changes.locale !== undefined ? { locale: changes.locale } : {}),
      updated_at: now,
    })
    .where('id', '=', subscriberId)
    .execute();
  if (changes.tags === undefined) return;
  await trx.deleteFrom('subscriber_tags').where('subscriber_id', '=', subscriberId).execute();
  if (changes.tags.length > 0) {
    await trx
      .insertInto('subscriber_tags')
      .values(changes.tags.map((tag) => ({ subscriber_id: subscriberId, tag })))
      .execute();
  }
}

/** The code of each channel among `channelIds` (one query for a page of subscribers from several channels). */
export async function channelCodesOf(
  db: Kysely<Database>,
  channelIds: readonly string[],
): Promise<Map<string, string>> {
  if (channelIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('channels')
    .select(['id', 'code'])
    .where('id', 'in', [...new Set(channelIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.code]));
}
