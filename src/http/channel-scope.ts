import type { Kysely } from 'kysely';
import { findChannelByCode, listChannels, type Channel } from '../store/channels-queries.ts';
import type { Database } from '../store/schema.ts';
import { ApiError } from './api-error.ts';
import type { AuthContext } from './app-types.ts';

export function isChannelInScope(auth: AuthContext, code: string): boolean {
  return auth.channels === null || auth.channels.includes(code);
}

/**
 * 403 channel_not_allowed when the key's scope leaves the channel out. Checked before looking the channel up, so
 * the answer is the same whether or not the channel exists and a scoped key learns nothing about other channels.
 */
export function assertChannelInScope(auth: AuthContext, code: string): void {
  if (!isChannelInScope(auth, code)) {
    throw new ApiError('channel_not_allowed', { details: { channelCode: code } });
  }
}

/** The account's channel `code`, asked by `auth`: 403 outside its scope (assertChannelInScope), 404 when unknown. */
export async function channelInScope(db: Kysely<Database>, auth: AuthContext, code: string): Promise<Channel> {
  assertChannelInScope(auth, code);
  const channel = await findChannelByCode(db, auth.accountId, code);
  if (!channel) throw new ApiError('channel_not_found', { details: { channelCode: code } });
  return channel;
}

/**
 * The channels a list endpoint may show: the one named by its `channelCode` filter (403 outside the scope, 404 when
 * unknown), else every channel in the key's scope, else null for all of the account's channels.
 */
export async function listableChannelIds(
  db: Kysely<Database>,
  auth: AuthContext,
  channelCode: string | undefined,
): Promise<string[] | null> {
  if (channelCode !== undefined) {
    return [(await channelInScope(db, auth, channelCode)).id];
  }
  if (auth.channels === null) return null;
  const scoped = await listChannels(db, {
    accountId: auth.accountId,
    codes: auth.channels,
    after: null,
    limit: auth.channels.length,
  });
  return scoped.map((channel) => channel.id);
}
