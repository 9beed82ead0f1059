import type { Kysely } from 'kysely';
import { recordEvents } from './events-store.ts';
import type { Database } from './schema.ts';

/**
 * Erasing a person (DELETE /users/{externalId}, docs/api.md "Users"): every subscriber of the account with that
 * external id is removed with what names it — its row (token, push-to-start token, external id), its tags, its
 * per-notification failure rows and its Live Activity tokens — and the external id is blanked in the account's
 * earlier events and webhook messages about those subscribers (`subscriber.created` carries it). One
 * `subscriber.deleted` event per subscriber tells webhooks; it names the subscriber id and channel, never the person.
 * Send jobs still holding a removed subscriber's id find it gone and count it as skipped (send-batch-job.ts).
 * Runs inside the caller's transaction.
 */
export async function eraseUser(
  trx: Kysely<Database>,
  input: { accountId: string; externalId: string; now: number },
): Promise<Array<{ id: string; channelCode: string; platform: string }>> {
  const subscribers = await trx
    .selectFrom('subscribers')
    .innerJoin('channels', 'channels.id', 'subscribers.channel_id')
    .select(['subscribers.id', 'subscribers.platform', 'channels.code as channelCode'])
    .where('subscribers.account_id', '=', input.accountId)
    .where('subscribers.external_id', '=', input.externalId)
    .orderBy('subscribers.id')
    .execute();
  if (subscribers.length === 0) return [];
  const ids = subscribers.map((subscriber) => subscriber.id);

  await trx.deleteFrom('subscriber_tags').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('delivery_failures').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('live_activity_tokens').where('subscriber_id', 'in', ids).execute();
  await trx.deleteFrom('subscribers').where('id', 'in', ids).execute();
  await blankExternalIdInEvents(trx, input.accountId, ids);

  await recordEvents(
    trx,
    subscribers.map((subscriber) => ({
      accountId: input.accountId,
      type: 'subscriber.deleted' as const,
      data: { subscriberId: subscriber.id, channelCode: subscriber.channelCode, platform: subscriber.platform, reason: 'erased' },
      now: input.now,
    })),
  );
  return subscribers;
}

/**
 * Events (and the webhook messages made from them) that carry the external id of one of `subscriberIds`: the id is
 * replaced by null, the rest of the event kept. Ids contain only letters, digits and "_", so they are safe in LIKE.
 */
async function blankExternalIdInEvents(trx: Kysely<Database>, accountId: string, subscriberIds: string[]): Promise<void> {
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
      await trx.updateTable('events').set({ data: JSON.stringify({ ...data, externalId: null }) }).where('id', '=', event.id).execute();
      const messages = await trx.selectFrom('webhook_messages').select(['id', 'payload']).where('event_id', '=', event.id).execute();
      for (const message of messages) {
        const body = JSON.parse(message.payload) as { data: Record<string, unknown> };
        await trx.updateTable('webhook_messages').set({ payload: JSON.stringify({ ...body, data: { ...body.data, externalId: null } }) }).where('id', '=', message.id).execute();
      }
    }
  }
}
