import type { Kysely } from 'kysely';
import { openSecret, sealSecret } from '../../../domain/secret-box.ts';
import { findAccount } from '../../../store/accounts-queries.ts';
import { createApiKey, findApiKey, isApiKeyActive, revokeApiKey } from '../../../store/api-keys-queries.ts';
import { setChannelJoinKey, type Channel } from '../../../store/channels-queries.ts';
import type { Database } from '../../../store/schema.ts';
import type { AppDependencies } from '../../app-types.ts';
import type { JoinPageBase } from './channel-view.ts';

/**
 * The join page's key (docs/web-push.md, "Join page"): switching the page on creates a publishable key scoped to the
 * channel alone, which the page embeds so a visitor's browser can register with POST /api/v1/subscribers like any
 * app. It exposes nothing beyond that channel's registration (publishable keys cannot send or read), and its
 * registrations meet the publishable keys' rate limits per client address and per key. Switching the page off
 * revokes the key. Its value is sealed on the channel row (context = channel id), since api_keys keeps only hashes
 * and the page shows the key on every visit.
 */
export async function switchJoinPage(
  db: Kysely<Database>,
  input: { channel: Channel; on: boolean; secretKey: Buffer; now: number },
): Promise<void> {
  const { channel, on, now } = input;
  const current = channel.join_key_id === null ? undefined : await findApiKey(db, channel.join_key_id);
  const currentActive = current !== undefined && isApiKeyActive(current, now);
  if (on && currentActive) return;
  if (!on) {
    if (current && currentActive) await revokeApiKey(db, current.id, now);
    if (channel.join_key_id !== null && !(await setChannelJoinKey(db, channel.id, null, channel.join_key_id)))
      throw new JoinPageSwitchRace();
    return;
  }
  // On, and no usable key (never had one, or it was revoked on the keys page): issue a fresh one.
  const created = await createApiKey(db, {
    accountId: channel.account_id,
    name: `Join page: ${channel.code}`,
    kind: 'publishable',
    channels: [channel.code],
    now,
  });
  const sealed = sealSecret(input.secretKey, created.value, channel.id);
  if (!(await setChannelJoinKey(db, channel.id, { keyId: created.row.id, sealed }, channel.join_key_id)))
    throw new JoinPageSwitchRace();
}

/**
 * Another switch of the same channel committed between reading the channel and writing it. Thrown inside the
 * transaction so the key this one created rolls back with it; the caller runs the switch again on the new state.
 */
export class JoinPageSwitchRace extends Error {
  constructor() {
    super("the channel's join page was switched at the same time");
  }
}

/** The join page's key value, or undefined when the page is off or its key no longer works (revoked, expired). */
export async function activeJoinKey(
  db: Kysely<Database>,
  channel: Channel,
  secretKey: Buffer,
  now: number,
): Promise<string | undefined> {
  if (channel.join_key_id === null || channel.join_key_secret === null) return undefined;
  const key = await findApiKey(db, channel.join_key_id);
  if (!key || !isApiKeyActive(key, now)) return undefined;
  return openSecret(secretKey, channel.join_key_secret, channel.id);
}

/** What channel views need to show an account's join page addresses: the base URL and the account's slug. */
export async function joinPageBase(deps: AppDependencies, accountId: string): Promise<JoinPageBase> {
  const account = await findAccount(deps.store.db, accountId);
  if (!account) throw new Error(`account ${accountId} of an authenticated request is missing`);
  return { baseUrl: deps.config.baseUrl, accountSlug: account.slug };
}
