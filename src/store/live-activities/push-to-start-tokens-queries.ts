import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/**
 * Push-to-start tokens per template. iOS issues one push-to-start token per ActivityAttributes type
 * (`Activity<T>.pushToStartTokenUpdates`, docs/protocols.md 2.3), and a start must go to the token of its own type. A
 * device reports each with `template` on POST /subscribers; a token reported without one stays in
 * `subscribers.push_to_start_token` and serves every template the device has no token of its own for (what every
 * token did before templates were known). So the token a start of template T goes to is: the device's T token, else
 * its untemplated one, else none (the device is not sent that start).
 */

/** Stores (or replaces) the device's token for one template. */
export async function savePushToStartToken(
  trx: Kysely<Database>,
  input: { subscriberId: string; template: string; token: string; now: number },
): Promise<void> {
  await trx
    .insertInto('push_to_start_tokens')
    .values({
      subscriber_id: input.subscriberId,
      template: input.template,
      token: input.token,
      created_at: input.now,
      updated_at: input.now,
    })
    .onConflict((conflict) =>
      conflict.columns(['subscriber_id', 'template']).doUpdateSet({ token: input.token, updated_at: input.now }),
    )
    .execute();
}

/** The push-to-start token a start of `template` goes to, per subscriber of the batch (templated first, then untemplated). */
export async function pushToStartTokensFor(
  db: Kysely<Database>,
  subscribers: ReadonlyArray<{ id: string; push_to_start_token: string | null }>,
  template: string,
): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  for (const subscriber of subscribers)
    if (subscriber.push_to_start_token !== null) tokens.set(subscriber.id, subscriber.push_to_start_token);
  if (subscribers.length === 0) return tokens;
  const rows = await db
    .selectFrom('push_to_start_tokens')
    .select(['subscriber_id', 'token'])
    .where('template', '=', template)
    .where(
      'subscriber_id',
      'in',
      subscribers.map((subscriber) => subscriber.id),
    )
    .execute();
  for (const row of rows) tokens.set(row.subscriber_id, row.token);
  return tokens;
}

/** The condition "this iOS subscriber can be started with `template`", for queries over `subscribers`. */
export function hasPushToStartTokenFor(template: string) {
  return (eb: ExpressionBuilder<Database, 'subscribers'>) =>
    eb.or([
      eb('subscribers.push_to_start_token', 'is not', null),
      eb.exists(
        eb
          .selectFrom('push_to_start_tokens')
          .select('push_to_start_tokens.subscriber_id')
          .whereRef('push_to_start_tokens.subscriber_id', '=', 'subscribers.id')
          .where('push_to_start_tokens.template', '=', template),
      ),
    ]);
}

/**
 * Forgets a push-to-start token APNs called dead (410): that token only, wherever it is kept. The subscriber keeps its
 * device token and stays subscribed; the app reports a new push-to-start token with its next registration.
 */
export async function forgetPushToStartToken(
  trx: Kysely<Database>,
  input: { subscriberId: string; token: string; now: number },
): Promise<void> {
  await trx
    .deleteFrom('push_to_start_tokens')
    .where('subscriber_id', '=', input.subscriberId)
    .where('token', '=', input.token)
    .execute();
  await trx
    .updateTable('subscribers')
    .set({ push_to_start_token: null, updated_at: input.now })
    .where('id', '=', input.subscriberId)
    .where('push_to_start_token', '=', input.token)
    .execute();
}
