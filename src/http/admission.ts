import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { Channel } from '../store/channels-queries.ts';
import { isApiKeyActive } from '../store/api-keys-queries.ts';
import type { Database } from '../store/schema.ts';
import { readSendContext } from '../store/send-context-queries.ts';
import { ApiError } from './api-error.ts';
import type { AppDependencies, AuthContext } from './app-types.ts';
import { unauthorized } from './auth.ts';
import { assertChannelInScope } from './channel-scope.ts';
import { endpoint } from './endpoint.ts';
import { quotaTerms, setQuotaHeaders, type QuotaTerms } from './quota.ts';

/** A send an account asks for on one of its channels: a notification, or the start of a Live Activity. */
export interface SendRequest<Prepared, Stored> {
  channelCode: string;
  /**
   * The send as it will be stored on this channel. Throws 413 payload_too_large when its platform payloads would be
   * over the providers' limits: every push of it would be refused later.
   */
  prepare(channel: Channel): Prepared;
  /**
   * Stores the send inside the admission's transaction and charges one unit of the quota with it, throwing the
   * terms' 429 when the quota is used up (so nothing stays stored); returns what was stored and the count used.
   */
  store(trx: Kysely<Database>, prepared: Prepared, quota: QuotaTerms): Promise<{ stored: Stored; used: number }>;
  /** The send writes one statement, complete by itself (`Store.runShortTransaction`'s `oneWrite`). */
  oneWrite?: boolean;
}

/**
 * Admission: what every send passes before anything of it is stored, the same for notifications and Live Activities.
 * In this order, each refusal storing and charging nothing:
 *   401  a key served from the short key cache (src/http/api-key-cache.ts) revoked, rotated out or expired since:
 *        its standing is read as committed, in the transaction's first statement with the account and the channel;
 *   403  channel_not_allowed, outside the key's channel scope (checked before the lookup, so a scoped key learns
 *        nothing about other channels);
 *   404  channel_not_found;
 *   409  app_required, a channel on the built-in app where the operator requires accounts' own (docs/apps.md);
 *   413  payload_too_large (`prepare`);
 *   429  quota_exceeded (`store`).
 * The transaction is a short one (`Store.runShortTransaction`: on SQLite shared with the other requests of the same
 * moment, each in a savepoint of its own). A 201 therefore means the send is stored with its jobs; the quota headers
 * are set on `reply`.
 */
export async function admitSend<Prepared, Stored>(
  deps: AppDependencies,
  auth: AuthContext,
  reply: FastifyReply,
  send: SendRequest<Prepared, Stored>,
): Promise<Stored> {
  assertChannelInScope(auth, send.channelCode);
  const now = deps.clock.now();
  const admit = async (trx: Kysely<Database>) => {
    const context = await readSendContext(trx, {
      accountId: auth.accountId,
      keyId: auth.keyId,
      channelCode: send.channelCode,
    });
    if (context.key !== null && (context.key === undefined || !isApiKeyActive(context.key, now))) throw unauthorized();
    auth.keyFromCache = false;
    const channel = context.channel;
    if (!channel) throw new ApiError('channel_not_found', { details: { channelCode: send.channelCode } });
    if (channel.app_id === null && deps.config.requireOwnApp)
      throw new ApiError('app_required', { details: { channelCode: send.channelCode } });
    const prepared = send.prepare(channel);
    const terms = quotaTerms(context.account, now);
    const { stored, used } = await send.store(trx, prepared, terms);
    return { stored, quota: terms.state(used) };
  };
  const { stored, quota } = await deps.store.runShortTransaction(admit, { oneWrite: send.oneWrite === true });
  setQuotaHeaders(reply, quota);
  return stored;
}

/**
 * Declares an endpoint whose handler admits sends (admitSend). Such a handler re-reads its key's standing inside its
 * own transaction, so the auth hook (src/http/auth.ts) may serve the key from its short cache.
 */
export const sendEndpoint: typeof endpoint = (options, handler) => ({
  ...endpoint(options, handler),
  confirmsCachedKey: true,
});
