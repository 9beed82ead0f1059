import type { Kysely, Selectable } from 'kysely';
import { toIso } from '../domain/clock.ts';
import { isId, newId } from '../domain/ids.ts';
import type { Database, SubscribersTable } from './schema.ts';
import { recordEvent } from './events-store.ts';

export type Subscriber = Selectable<SubscribersTable>;
export type Platform = Subscriber['platform'];
export type UnsubscribeReason = 'requested' | 'token_unregistered' | 'token_invalid';

export interface SubscriberRegistration {
  accountId: string;
  channelId: string;
  channelCode: string;
  platform: Platform;
  token: string;
  tokenHash: string;
  pushToStartToken: string | null;
  timezone: string | null;
  locale: string | null;
  externalId: string | null;
  now: number;
}

/**
 * Registers a device in a channel, idempotent on (channel, platform, token): registering again returns the same
 * subscriber with its details refreshed, and reactivates it if it had unsubscribed. `created` is true when a
 * subscriber row was inserted or reactivated, which is when `subscriber.created` is recorded.
 * Runs inside the caller's transaction.
 */
export async function registerSubscriber(trx: Kysely<Database>, input: SubscriberRegistration): Promise<{ subscriber: Subscriber; created: boolean }> {
  const details = {
    token: input.token,
    push_to_start_token: input.pushToStartToken,
    timezone: input.timezone,
    locale: input.locale,
    external_id: input.externalId,
    updated_at: input.now,
  };
  const existing = await trx
    .selectFrom('subscribers')
    .selectAll()
    .where('channel_id', '=', input.channelId)
    .where('platform', '=', input.platform)
    .where('token_hash', '=', input.tokenHash)
    .executeTakeFirst();
  if (existing) {
    const reactivated = existing.status !== 'active';
    const subscriber = await trx
      .updateTable('subscribers')
      .set({ ...details, status: 'active', unsubscribe_reason: null, unsubscribed_at: null })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (reactivated) await recordCreated(trx, subscriber, input.channelCode, input.now);
    return { subscriber, created: reactivated };
  }
  const subscriber: Subscriber = {
    id: newId('subscriber', input.now),
    account_id: input.accountId,
    channel_id: input.channelId,
    platform: input.platform,
    token_hash: input.tokenHash,
    status: 'active',
    unsubscribe_reason: null,
    created_at: input.now,
    unsubscribed_at: null,
    ...details,
  };
  await trx.insertInto('subscribers').values(subscriber).execute();
  await recordCreated(trx, subscriber, input.channelCode, input.now);
  return { subscriber, created: true };
}

async function recordCreated(trx: Kysely<Database>, subscriber: Subscriber, channelCode: string, now: number): Promise<void> {
  await recordEvent(trx, {
    accountId: subscriber.account_id,
    type: 'subscriber.created',
    data: { subscriberId: subscriber.id, channelCode, platform: subscriber.platform, externalId: subscriber.external_id, createdAt: toIso(now) },
    now,
  });
}

/** A string that is not a subscriber id names nothing: not asked of the database (PostgreSQL refuses "\0"). */
export async function findSubscriber(db: Kysely<Database>, accountId: string, id: string): Promise<Subscriber | undefined> {
  if (!isId('subscriber', id)) return undefined;
  return db.selectFrom('subscribers').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/**
 * Marks a subscriber unsubscribed and records `subscriber.unsubscribed` with the reason. Returns false when it
 * was already unsubscribed (nothing changes, no second event). Runs inside the caller's transaction.
 */
export async function unsubscribeSubscriber(
  trx: Kysely<Database>,
  input: { subscriber: Subscriber; channelCode: string; reason: UnsubscribeReason; now: number },
): Promise<boolean> {
  const result = await trx
    .updateTable('subscribers')
    .set({ status: 'unsubscribed', unsubscribe_reason: input.reason, unsubscribed_at: input.now, updated_at: input.now })
    .where('id', '=', input.subscriber.id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await recordEvent(trx, {
    accountId: input.subscriber.account_id,
    type: 'subscriber.unsubscribed',
    data: { subscriberId: input.subscriber.id, channelCode: input.channelCode, platform: input.subscriber.platform, reason: input.reason },
    now: input.now,
  });
  return true;
}

/** Who a Live Activity start reaches: iOS subscribers that gave a push-to-start token, and every Android and web one. */
export async function countLiveActivityTargets(db: Kysely<Database>, channelId: string): Promise<number> {
  return countActive(db, channelId, { liveActivityTargetsOnly: true });
}

async function countActive(db: Kysely<Database>, channelId: string, options: { liveActivityTargetsOnly: boolean }): Promise<number> {
  const row = await activeCountQuery(db, channelId, options).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The count as a query, to be used as a subquery (accepting a notification stores it in the same INSERT). */
export function activeInChannelCountQuery(db: Kysely<Database>, channelId: string) {
  return activeCountQuery(db, channelId, { liveActivityTargetsOnly: false });
}

function activeCountQuery(db: Kysely<Database>, channelId: string, options: { liveActivityTargetsOnly: boolean }) {
  let query = db
    .selectFrom('subscribers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('channel_id', '=', channelId)
    .where('status', '=', 'active');
  if (options.liveActivityTargetsOnly) query = query.where((eb) => eb.or([eb('platform', '!=', 'ios'), eb('push_to_start_token', 'is not', null)]));
  return query;
}

/** The distinct time zones (null for "none given") of a channel's active subscribers: one dispatch per zone. */
export async function distinctSubscriberTimezones(db: Kysely<Database>, channelId: string, createdAtOrBefore: number): Promise<Array<string | null>> {
  const rows = await db
    .selectFrom('subscribers')
    .select('timezone')
    .distinct()
    .where('channel_id', '=', channelId)
    .where('status', '=', 'active')
    .where('created_at', '<=', createdAtOrBefore)
    .execute();
  return rows.map((row) => row.timezone);
}
