import type { Kysely } from 'kysely';
import type { Channel } from './channels-queries.ts';
import { preparedQuery } from './prepared-query.ts';
import type { Database } from './schema.ts';

/** What accepting a notification needs to know about its caller and channel, read together. */
export interface SendContext {
  /** Undefined when the account does not exist (any more). */
  account: { plan: string; monthly_limit: number | null } | undefined;
  /** The API key's revocation and expiry as committed now; null for a dashboard session (no key); undefined when the key is gone. */
  key: { revoked_at: number | null; expires_at: number | null } | null | undefined;
  channel: Channel | undefined;
}

/**
 * One statement for the account's plan, the key's standing and the channel (by code), run first inside the accept
 * transaction. Reading the key here is what lets src/http/auth.ts serve the accept path from its short key cache and
 * still refuse a key revoked or rotated a moment ago, by any process, on the very next request: the revocation is
 * seen in the same round trip that reads the plan anyway (docs/performance.md, "Accept path": three statements became
 * this one).
 */
export async function readSendContext(
  trx: Kysely<Database>,
  input: { accountId: string; keyId: string | null; channelCode: string },
): Promise<SendContext> {
  const [row] = await sendContextQuery(trx, {
    accountId: input.accountId,
    keyId: input.keyId ?? '',
    channelCode: input.channelCode,
  });
  if (!row) return { account: undefined, key: undefined, channel: undefined };
  return {
    account: { plan: row.plan, monthly_limit: row.monthly_limit },
    key:
      input.keyId === null
        ? null
        : row.key_id === null
          ? undefined
          : { revoked_at: row.revoked_at, expires_at: row.expires_at },
    channel:
      row.channel_id === null
        ? undefined
        : {
            id: row.channel_id,
            account_id: input.accountId,
            code: row.channel_code!,
            name: row.channel_name!,
            description: row.channel_description,
            created_at: row.channel_created_at!,
            join_key_id: row.channel_join_key_id,
            join_key_secret: row.channel_join_key_secret,
            app_id: row.channel_app_id,
            frequency_cap_count: row.channel_frequency_cap_count,
            frequency_cap_period_seconds: row.channel_frequency_cap_period_seconds,
            quiet_hours_start: row.channel_quiet_hours_start,
            quiet_hours_end: row.channel_quiet_hours_end,
          },
  };
}

/** Compiled once per dialect (src/store/prepared-query.ts): it runs on every accepted notification. */
const sendContextQuery = preparedQuery(
  (db, param, _values: { accountId: string; keyId: string; channelCode: string }) =>
    db
      .selectFrom('accounts')
      .leftJoin('api_keys', (join) =>
        join.onRef('api_keys.account_id', '=', 'accounts.id').on('api_keys.id', '=', param<string>('keyId')),
      )
      .leftJoin('channels', (join) =>
        join.onRef('channels.account_id', '=', 'accounts.id').on('channels.code', '=', param<string>('channelCode')),
      )
      .select([
        'accounts.plan',
        'accounts.monthly_limit',
        'api_keys.id as key_id',
        'api_keys.revoked_at',
        'api_keys.expires_at',
        'channels.id as channel_id',
        'channels.code as channel_code',
        'channels.name as channel_name',
        'channels.description as channel_description',
        'channels.created_at as channel_created_at',
        'channels.join_key_id as channel_join_key_id',
        'channels.join_key_secret as channel_join_key_secret',
        'channels.frequency_cap_count as channel_frequency_cap_count',
        'channels.frequency_cap_period_seconds as channel_frequency_cap_period_seconds',
        'channels.quiet_hours_start as channel_quiet_hours_start',
        'channels.quiet_hours_end as channel_quiet_hours_end',
        'channels.app_id as channel_app_id',
      ])
      .where('accounts.id', '=', param<string>('accountId')),
);
