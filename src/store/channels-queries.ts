import type { Kysely, Selectable } from 'kysely';
import type { FrequencyCap } from '../domain/frequency-cap.ts';
import type { QuietHours } from '../domain/quiet-hours.ts';
import { isId, newId } from '../domain/ids.ts';
import type { ChannelsTable, Database } from './schema.ts';
import { isUniqueViolation } from './store-errors.ts';

export type Channel = Selectable<ChannelsTable>;

export interface SubscriberCounts {
  ios: number;
  android: number;
  web: number;
  total: number;
}

export class ChannelCodeTakenError extends Error {
  constructor(readonly code: string) {
    super(`channel code "${code}" is already used in this account`);
  }
}

export async function createChannel(
  db: Kysely<Database>,
  input: {
    accountId: string;
    code: string;
    name: string;
    description: string | null;
    appId?: string | null;
    frequencyCap?: FrequencyCap | null;
    quietHours?: QuietHours | null;
    now: number;
  },
): Promise<Channel> {
  const channel: Channel = {
    id: newId('channel', input.now),
    account_id: input.accountId,
    code: input.code,
    name: input.name,
    description: input.description,
    created_at: input.now,
    join_key_id: null,
    join_key_secret: null,
    app_id: input.appId ?? null,
    ...frequencyCapColumns(input.frequencyCap ?? null),
    ...quietHoursColumns(input.quietHours ?? null),
  };
  try {
    await db.insertInto('channels').values(channel).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new ChannelCodeTakenError(input.code);
    throw error;
  }
  return channel;
}

/** A channel's delivery rules as its columns (null: none), for creating and changing it alike. */
function frequencyCapColumns(cap: FrequencyCap | null) {
  return { frequency_cap_count: cap?.count ?? null, frequency_cap_period_seconds: cap?.periodSeconds ?? null };
}

function quietHoursColumns(quiet: QuietHours | null) {
  return { quiet_hours_start: quiet?.start ?? null, quiet_hours_end: quiet?.end ?? null };
}

export async function findChannelByCode(
  db: Kysely<Database>,
  accountId: string,
  code: string,
): Promise<Channel | undefined> {
  return db
    .selectFrom('channels')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('code', '=', code)
    .executeTakeFirst();
}

/** Channels of an account in id order, optionally only those whose code is in `codes` (a key's scope). */
export async function listChannels(
  db: Kysely<Database>,
  input: { accountId: string; codes: string[] | null; after: string | null; limit: number },
): Promise<Channel[]> {
  if (input.codes?.length === 0) return [];
  let query = db.selectFrom('channels').selectAll().where('account_id', '=', input.accountId);
  if (input.codes) query = query.where('code', 'in', input.codes);
  if (input.after) query = query.where('id', '>', input.after);
  return query.orderBy('id').limit(input.limit).execute();
}

/** Active subscribers per platform for each channel; channels without any get zeros. */
export async function countActiveSubscribers(
  db: Kysely<Database>,
  channelIds: string[],
): Promise<Map<string, SubscriberCounts>> {
  const counts = new Map<string, SubscriberCounts>(
    channelIds.map((id) => [id, { ios: 0, android: 0, web: 0, total: 0 }]),
  );
  if (channelIds.length === 0) return counts;
  const rows = await db
    .selectFrom('subscribers')
    .select(['channel_id', 'platform', (eb) => eb.fn.countAll<number>().as('count')])
    .where('channel_id', 'in', channelIds)
    .where('status', '=', 'active')
    .groupBy(['channel_id', 'platform'])
    .execute();
  for (const row of rows) {
    const entry = counts.get(row.channel_id)!;
    const count = Number(row.count);
    entry[row.platform] = count;
    entry.total += count;
  }
  return counts;
}

/** A string that is not a channel id names nothing: not asked of the database (PostgreSQL refuses "\0"). */
export async function findChannelById(db: Kysely<Database>, id: string): Promise<Channel | undefined> {
  if (!isId('channel', id)) return undefined;
  return db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes a channel's name and description (each only when given; description null clears it). */
export async function updateChannel(
  db: Kysely<Database>,
  id: string,
  input: {
    name?: string;
    description?: string | null;
    appId?: string;
    frequencyCap?: FrequencyCap | null;
    quietHours?: QuietHours | null;
  },
): Promise<void> {
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.appId !== undefined ? { app_id: input.appId } : {}),
    ...(input.frequencyCap !== undefined ? frequencyCapColumns(input.frequencyCap) : {}),
    ...(input.quietHours !== undefined ? quietHoursColumns(input.quietHours) : {}),
  };
  if (Object.keys(changes).length === 0) return;
  await db.updateTable('channels').set(changes).where('id', '=', id).execute();
}

/**
 * Sets (a key and its sealed value) or clears (null) the publishable key the channel's join page embeds, only if the
 * channel still has the key `expectedKeyId` the caller read: false when another switch changed it in between (on
 * PostgreSQL the row lock makes the later UPDATE re-check and match nothing; SQLite serializes the transactions).
 */
export async function setChannelJoinKey(
  db: Kysely<Database>,
  id: string,
  joinKey: { keyId: string; sealed: string } | null,
  expectedKeyId: string | null,
): Promise<boolean> {
  const result = await db
    .updateTable('channels')
    .set({ join_key_id: joinKey?.keyId ?? null, join_key_secret: joinKey?.sealed ?? null })
    .where('id', '=', id)
    .where('join_key_id', expectedKeyId === null ? 'is' : '=', expectedKeyId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
