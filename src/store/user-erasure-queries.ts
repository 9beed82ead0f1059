import { sql, type Kysely } from 'kysely';
import { parseAudience } from '../domain/audience.ts';
import { recordEvents } from './events-queries.ts';
import type { Database } from './schema.ts';

/**
 * Erasing a person (DELETE /users/{externalId}, docs/api.md "Users"): every subscriber of the account with that
 * external id is removed with what names it — its row (token, push-to-start token, external id), its tags, its
 * per-template push-to-start tokens, its per-notification failure rows, what its channel's frequency cap counted, its
 * receipts (what it did with pushes and Live Activities; the counts stay, naming no one), its Live Activity tokens and
 * the Live Activity failures that name it — the external id is blanked in the account's earlier events and webhook
 * messages about those subscribers (`subscriber.created` carries it), with what receivers answered to those messages,
 * and it is taken out of the `externalIds` audiences of the account's notifications and Live Activities. One
 * `subscriber.deleted` event per subscriber tells webhooks; it names the subscriber id and channel, never the person.
 * Send jobs still holding a removed subscriber's id find it gone and count it as skipped (send-batch-job.ts). Runs
 * inside the caller's transaction; what the database files keep of the deleted rows is the store's part
 * (Store.forgetDeleted, src/store/database.ts).
 */
export async function eraseUser(
  trx: Kysely<Database>,
  input: { accountId: string; externalId: string; now: number },
): Promise<UserErasure> {
  const subscribers = await trx
    .selectFrom('subscribers')
    .innerJoin('channels', 'channels.id', 'subscribers.channel_id')
    .select(['subscribers.id', 'subscribers.platform', 'channels.code as channelCode'])
    .where('subscribers.account_id', '=', input.accountId)
    .where('subscribers.external_id', '=', input.externalId)
    .orderBy('subscribers.id')
    .execute();
  const audiences = await removeFromAudiences(trx, input.accountId, input.externalId);
  if (subscribers.length === 0) return { subscribers, audiences };
  const ids = subscribers.map((subscriber) => subscriber.id);

  await trx.deleteFrom('subscriber_tags').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('push_to_start_tokens').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('widget_push_tokens').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('delivery_failures').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('frequency_cap_deliveries').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('receipts').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('live_activity_tokens').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('live_activity_failures').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('live_activity_receipts').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('subscribers').where('id', 'in', ids).execute();
  await blankExternalIdInEvents(trx, input.accountId, ids);

  await recordEvents(
    trx,
    subscribers.map((subscriber) => ({
      accountId: input.accountId,
      type: 'subscriber.deleted' as const,
      data: {
        subscriberId: subscriber.id,
        channelCode: subscriber.channelCode,
        platform: subscriber.platform,
        reason: 'erased',
      },
      now: input.now,
    })),
  );
  return { subscribers, audiences };
}

export interface UserErasure {
  /** The subscribers removed. */
  subscribers: Array<{ id: string; channelCode: string; platform: string }>;
  /** How many notifications and Live Activities named the person in their `externalIds` audience. */
  audiences: number;
}

/**
 * Takes `externalId` out of the `externalIds` audiences (src/domain/audience.ts) of the account's notifications and
 * Live Activities; the others they name stay targeted, and an audience left empty targets nobody
 * (src/store/audience-filter.ts). Audiences are stored as JSON.stringify'd text, so the id appears in them exactly as
 * JSON.stringify writes it: LIKE on that (its wildcards escaped) narrows the rows, the parsed audience decides.
 */
async function removeFromAudiences(trx: Kysely<Database>, accountId: string, externalId: string): Promise<number> {
  const pattern = `%${JSON.stringify(externalId).replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
  let changed = 0;
  for (const table of ['notifications', 'live_activities'] as const) {
    const rows = await trx
      .selectFrom(table)
      .select(['id', 'audience'])
      .where('account_id', '=', accountId)
      .where(sql<boolean>`audience like ${pattern} escape '\\'`)
      .execute();
    for (const row of rows) {
      const audience = parseAudience(row.audience);
      if (audience === null || !('externalIds' in audience) || !audience.externalIds.includes(externalId)) continue;
      const rest = { externalIds: audience.externalIds.filter((id) => id !== externalId) };
      await trx
        .updateTable(table)
        .set({ audience: JSON.stringify(rest) })
        .where('id', '=', row.id)
        .execute();
      changed += 1;
    }
  }
  return changed;
}

/**
 * Events (and the webhook messages made from them, with their attempts' answers) that carry the external id of one of `subscriberIds`: the id is
 * replaced by null, the rest of the event kept. Ids contain only letters, digits and "_", so they are safe in LIKE.
 */
async function blankExternalIdInEvents(
  trx: Kysely<Database>,
  accountId: string,
  subscriberIds: string[],
): Promise<void> {
  for (const subscriberId of subscriberIds) {
    const events = await trx
      .selectFrom('events')
      .select(['id', 'data'])
      .where('account_id', '=', accountId)
      .where('data', 'like', `%"subscriberId":"${subscriberId}"%`)
      .execute();
    for (const event of events) {
      const data = JSON.parse(event.data) as Record<string, unknown>;
      if (data.subscriberId !== subscriberId || !('externalId' in data) || data.externalId === null) continue;
      await trx
        .updateTable('events')
        .set({ data: JSON.stringify({ ...data, externalId: null }) })
        .where('id', '=', event.id)
        .execute();
      const messages = await trx
        .selectFrom('webhook_messages')
        .select(['id', 'payload'])
        .where('event_id', '=', event.id)
        .execute();
      for (const message of messages) {
        const body = JSON.parse(message.payload) as { data: Record<string, unknown> };
        await trx
          .updateTable('webhook_messages')
          .set({ payload: JSON.stringify({ ...body, data: { ...body.data, externalId: null } }) })
          .where('id', '=', message.id)
          .execute();
        // A receiver may have echoed the body, and its answer's first 1 KiB is kept with the attempt.
        await trx
          .updateTable('webhook_attempts')
          .set({ response_excerpt: null })
          .where('message_id', '=', message.id)
          .execute();
      }
    }
  }
}
