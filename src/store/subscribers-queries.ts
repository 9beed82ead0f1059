import type { Kysely, Selectable } from 'kysely';
import type { Audience } from '../domain/audience.ts';
import { toIso } from '../domain/clock.ts';
import { withAudience } from './audience-filter.ts';
import { isId, newId } from '../domain/ids.ts';
import { tokenHashKey } from '../domain/device-token.ts';
import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import type { Database, SubscribersTable } from './schema.ts';
import { idListValues, inIdList, type IdListValues } from './id-list.ts';
import { preparedQuery } from './prepared-query.ts';
import { recordEvent, recordEvents } from './events-queries.ts';
import { preparedRowsQuery } from './prepared-rows-query.ts';
import { hasPushToStartTokenFor, savePushToStartToken } from './live-activities/push-to-start-tokens-queries.ts';

export type Subscriber = Selectable<SubscribersTable>;
export type Platform = Subscriber['platform'];
export type UnsubscribeReason = 'requested' | 'token_unregistered' | 'token_invalid';

/** One device, validated and normalized (the token and its hash as src/domain/device-token.ts makes them). */
export interface SubscriberImport {
  platform: Platform;
  token: string;
  /** The 32-byte SHA-256 (src/domain/device-token.ts), as `subscribers.token_hash` stores it. */
  tokenHash: Buffer;
  pushToStartToken: string | null;
  timezone: string | null;
  locale: string | null;
  externalId: string | null;
  /**
   * iOS: the APNs environment the app said its token belongs to; null when it did not say (then it is learned on the
   * first push, src/delivery/apns/apns-environment-sender.ts, and a re-registration without it keeps what was learned).
   */
  apnsEnvironment?: ApnsEnvironment | null;
  /** iOS: the system version the app reported ("18.2"); refreshed like the other details, so absent means unknown. */
  osVersion?: string | null;
}

/** One line of `clarion subscribers import`: a device, and the push-to-start tokens it reported per template. */
export interface SubscriberImportRow extends SubscriberImport {
  /** iOS: push-to-start tokens by Live Activity template (push_to_start_tokens); `pushToStartToken` is the untemplated one. */
  pushToStartTokens?: Readonly<Record<string, string>>;
}

/** A device registering in a channel: `POST /subscribers` one at a time, `importSubscribers` many at once. */
export interface SubscriberRegistration extends SubscriberImport {
  /** With `pushToStartToken`: the template it was issued for; the token then goes to push_to_start_tokens instead. */
  pushToStartTemplate?: string | null;
  accountId: string;
  channelId: string;
  channelCode: string;
  now: number;
}

/**
 * Registers a device in a channel, idempotent on (channel, platform, token): registering again returns the same
 * subscriber with its details refreshed, and reactivates it if it had unsubscribed. `created` is true when a
 * subscriber row was inserted or reactivated, which is when `subscriber.created` is recorded.
 * Runs inside the caller's transaction.
 */
export async function registerSubscriber(
  trx: Kysely<Database>,
  input: SubscriberRegistration,
): Promise<{ subscriber: Subscriber; created: boolean }> {
  const templated = input.pushToStartTemplate != null && input.pushToStartToken !== null;
  const details = {
    token: input.token,
    // A token reported for one template leaves the untemplated one alone (the app reports each type in its own call).
    ...(templated ? {} : { push_to_start_token: input.pushToStartToken }),
    os_version: input.osVersion ?? null,
    timezone: input.timezone,
    locale: input.locale,
    external_id: input.externalId,
    updated_at: input.now,
    ...(input.apnsEnvironment ? { apns_environment: input.apnsEnvironment } : {}),
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
    if (templated)
      await savePushToStartToken(trx, {
        subscriberId: subscriber.id,
        template: input.pushToStartTemplate!,
        token: input.pushToStartToken!,
        now: input.now,
      });
    if (reactivated) await recordCreated(trx, subscriber, input.channelCode, input.now);
    return { subscriber, created: reactivated };
  }
  const subscriber: Subscriber = {
    id: newId('subscriber', input.now),
    account_id: input.accountId,
    channel_id: input.channelId,
    platform: input.platform,
    token_hash: input.tokenHash,
    push_to_start_token: null,
    status: 'active',
    unsubscribe_reason: null,
    created_at: input.now,
    unsubscribed_at: null,
    apns_environment: null,
    last_delivered_at: null,
    ...details,
  };
  await trx.insertInto('subscribers').values(subscriber).execute();
  if (templated)
    await savePushToStartToken(trx, {
      subscriberId: subscriber.id,
      template: input.pushToStartTemplate!,
      token: input.pushToStartToken!,
      now: input.now,
    });
  await recordCreated(trx, subscriber, input.channelCode, input.now);
  return { subscriber, created: true };
}

async function recordCreated(
  trx: Kysely<Database>,
  subscriber: Subscriber,
  channelCode: string,
  now: number,
): Promise<void> {
  await recordEvent(trx, {
    accountId: subscriber.account_id,
    type: 'subscriber.created',
    data: createdEventData(subscriber, channelCode, toIso(now)),
    now,
  });
}

/**
 * Stores the APNs environment pushes just learned (src/delivery/apns/apns-environment-sender.ts): one UPDATE per
 * environment. Only where none is known yet, so a registration that said otherwise in the meantime wins.
 */
export async function rememberApnsEnvironments(
  trx: Kysely<Database>,
  learned: ReadonlyArray<{ id: string; environment: ApnsEnvironment }>,
): Promise<void> {
  for (const environment of ['production', 'sandbox'] as const) {
    const ids = learned.filter((entry) => entry.environment === environment).map((entry) => entry.id);
    if (ids.length > 0) await rememberApnsEnvironmentStatement(trx, { environment, ...idListValues(trx, ids) });
  }
}

/** One statement text for every batch (an iOS batch's settle): the id list is one parameter (id-list.ts). */
const rememberApnsEnvironmentStatement = preparedQuery(
  (db, param, _values: IdListValues & { environment: ApnsEnvironment }) =>
    db
      .updateTable('subscribers')
      .set({ apns_environment: param('environment') })
      .where(inIdList(db, 'id', param))
      .where('apns_environment', 'is', null),
);

/**
 * Records when the subscribers' pushes were accepted: ONE statement for a whole send batch (≤ 500 ids), inside its
 * settling transaction, so "last delivered" costs the fan-out a statement per batch, not per push (docs/performance.md, "Database work per push").
 */
export async function markDelivered(trx: Kysely<Database>, ids: readonly string[], at: number): Promise<void> {
  if (ids.length > 0) await markDeliveredStatement(trx, { at, ...idListValues(trx, ids) });
}

const markDeliveredStatement = preparedQuery((db, param, _values: IdListValues & { at: number }) =>
  db
    .updateTable('subscribers')
    .set({ last_delivered_at: param<number>('at') })
    .where(inIdList(db, 'id', param)),
);

/**
 * What a send batch reads of its subscribers for every push: where to push and whether it still may. The account and
 * platform an unsubscribe records are the batch's own (the notification's account, the job's platform), and the
 * registration time an APNs 410 is checked against is read only for such answers (subscriberRegistrationTimes).
 */
export type BatchSubscriber = Pick<Subscriber, 'id' | 'token' | 'status' | 'apns_environment'>;

/**
 * One SELECT for a whole send batch (≤ 500 ids), only the columns every push uses; one statement text for every batch.
 * Measured with bench/fanout-db-time.ts (SQLite, 30,000 subscribers, busy machine, 2026-11-24): this read's SQLite
 * time went from 5.3–6.3 to 4.1–4.2 µs per push when account_id, platform and updated_at were dropped from it; much of
 * the cost is making each row's values (docs/performance.md, "Database work per push").
 */
export function findBatchSubscribers(db: Kysely<Database>, ids: readonly string[]): Promise<BatchSubscriber[]> {
  return ids.length === 0 ? Promise.resolve([]) : batchSubscribersQuery(db, idListValues(db, ids));
}

const batchSubscribersQuery = preparedQuery((db, param, _values: IdListValues) =>
  db
    .selectFrom('subscribers')
    .select(['id', 'token', 'status', 'apns_environment'])
    .where(inIdList(db, 'id', param)),
);

/**
 * The locale and time zone of each of these subscribers, by id: read only for the batches of a localized notification
 * or a channel with quiet hours, not with every push's row (findBatchSubscribers).
 */
export async function subscriberPreferences(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, { locale: string | null; timezone: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await preferencesQuery(db, idListValues(db, ids));
  return new Map(rows.map((row) => [row.id, { locale: row.locale, timezone: row.timezone }]));
}

const preferencesQuery = preparedQuery((db, param, _values: IdListValues) =>
  db
    .selectFrom('subscribers')
    .select(['id', 'locale', 'timezone'])
    .where(inIdList(db, 'id', param)),
);

/** When each of these subscribers last registered (updated_at), by id: for the few tokens an APNs 410 called dead. */
export async function subscriberRegistrationTimes(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await registrationTimesQuery(db, idListValues(db, ids));
  return new Map(rows.map((row) => [row.id, row.updated_at]));
}

const registrationTimesQuery = preparedQuery((db, param, _values: IdListValues) =>
  db
    .selectFrom('subscribers')
    .select(['id', 'updated_at'])
    .where(inIdList(db, 'id', param)),
);

/** A string that is not a subscriber id names nothing: not asked of the database (PostgreSQL refuses "\0"). */
export async function findSubscriber(
  db: Kysely<Database>,
  accountId: string,
  id: string,
): Promise<Subscriber | undefined> {
  if (!isId('subscriber', id)) return undefined;
  return db
    .selectFrom('subscribers')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Marks a subscriber unsubscribed and records `subscriber.unsubscribed` with the reason. Returns false when it
 * was already unsubscribed (nothing changes, no second event). Runs inside the caller's transaction.
 */
export async function unsubscribeSubscriber(
  trx: Kysely<Database>,
  input: {
    subscriber: Pick<Subscriber, 'id' | 'account_id' | 'platform'>;
    channelCode: string;
    reason: UnsubscribeReason;
    now: number;
  },
): Promise<boolean> {
  const result = await trx
    .updateTable('subscribers')
    .set({
      status: 'unsubscribed',
      unsubscribe_reason: input.reason,
      unsubscribed_at: input.now,
      updated_at: input.now,
    })
    .where('id', '=', input.subscriber.id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await recordEvent(trx, {
    accountId: input.subscriber.account_id,
    type: 'subscriber.unsubscribed',
    data: {
      subscriberId: input.subscriber.id,
      channelCode: input.channelCode,
      platform: input.subscriber.platform,
      reason: input.reason,
    },
    now: input.now,
  });
  return true;
}

/**
 * Who a Live Activity start of `template` reaches: iOS subscribers with a push-to-start token for it
 * (push-to-start-tokens-queries.ts), and every Android and web one; only the start's audience when it has one.
 */
export async function countLiveActivityTargets(
  db: Kysely<Database>,
  channelId: string,
  template: string,
  audience: Audience | null = null,
): Promise<number> {
  const row = await withAudience(
    activeCountQuery(db, channelId, { liveActivityTemplate: template }),
    audience,
  ).executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * The count as a query, to be used as a subquery (accepting a notification stores it in the same INSERT), narrowed to
 * the send's audience when it has one (audience-filter.ts): still one subquery, no extra statement.
 */
export function activeInChannelCountQuery(db: Kysely<Database>, channelId: string, audience: Audience | null = null) {
  return withAudience(activeCountQuery(db, channelId, { liveActivityTemplate: null }), audience);
}

function activeCountQuery(db: Kysely<Database>, channelId: string, options: { liveActivityTemplate: string | null }) {
  let query = db
    .selectFrom('subscribers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('channel_id', '=', channelId)
    .where('status', '=', 'active');
  const template = options.liveActivityTemplate;
  if (template !== null)
    query = query.where((eb) => eb.or([eb('platform', '!=', 'ios'), hasPushToStartTokenFor(template)(eb)]));
  return query;
}

/** The distinct time zones (null for "none given") of a channel's active subscribers: one dispatch per zone. */
export async function distinctSubscriberTimezones(
  db: Kysely<Database>,
  channelId: string,
  createdAtOrBefore: number,
  audience: Audience | null = null,
): Promise<Array<string | null>> {
  const query = db
    .selectFrom('subscribers')
    .select('timezone')
    .distinct()
    .where('channel_id', '=', channelId)
    .where('status', '=', 'active')
    .where('created_at', '<=', createdAtOrBefore);
  const rows = await withAudience(query, audience).execute();
  return rows.map((row) => row.timezone);
}

/**
 * Rows per INSERT: 18 columns × 1,000 = 18,000 bound parameters, under SQLite's 32,766. Measured on the 2-core machine
 * (bench/import-subscribers.ts): 250 rows per statement ran ~20% slower, 2,000 no faster than 1,000.
 */
const IMPORT_ROWS_PER_STATEMENT = 1000;

/** The subscribers of a chunk already in the channel: all three columns of the unique index, one lookup per token. */
const knownSubscribers = preparedRowsQuery(
  (db, rows: ReadonlyArray<{ channelId: string; platform: Platform; tokenHash: Buffer }>) =>
    db
      .selectFrom('subscribers')
      .select(['id', 'platform', 'token_hash', 'status'])
      // Without `platform` SQLite scans the channel's rows for every chunk (the 100,000-row import took 16 s instead of
      // 2). One channel per chunk: the first row's is the statement's.
      .where('channel_id', '=', rows[0]!.channelId)
      .where(
        'platform',
        'in',
        rows.map((row) => row.platform),
      )
      .where(
        'token_hash',
        'in',
        rows.map((row) => row.tokenHash),
      ),
);

/** registerSubscriber's rules as one INSERT … ON CONFLICT DO UPDATE for a chunk of rows. */
const upsertSubscribers = preparedRowsQuery((db, values: readonly Subscriber[]) =>
  db
    .insertInto('subscribers')
    .values(values)
    .onConflict((conflict) =>
      conflict.columns(['channel_id', 'platform', 'token_hash']).doUpdateSet((eb) => ({
        token: eb.ref('excluded.token'),
        push_to_start_token: eb.ref('excluded.push_to_start_token'),
        timezone: eb.ref('excluded.timezone'),
        locale: eb.ref('excluded.locale'),
        external_id: eb.ref('excluded.external_id'),
        os_version: eb.ref('excluded.os_version'),
        status: 'active',
        unsubscribe_reason: null,
        unsubscribed_at: null,
        updated_at: eb.ref('excluded.updated_at'),
        // A row without an environment keeps the one already known (given before or learned on a push).
        apns_environment: eb.fn.coalesce('excluded.apns_environment', 'subscribers.apns_environment'),
      })),
    ),
);

/**
 * Registers many devices of one channel at once, with registerSubscriber's rules (`clarion subscribers import`): a
 * token already in the channel keeps its subscriber, gets its details refreshed and is reactivated if it had
 * unsubscribed; a new or reactivated subscriber gets its `subscriber.created` event unless `events` is false. The same
 * token twice in `rows` counts once (the later line wins). One SELECT of the known tokens and one INSERT … ON CONFLICT
 * DO UPDATE per 1,000 rows, instead of two or three statements per device, each compiled once (preparedRowsQuery).
 * Runs inside the caller's transaction.
 */
export async function importSubscribers(
  trx: Kysely<Database>,
  input: {
    accountId: string;
    channelId: string;
    channelCode: string;
    rows: readonly SubscriberImportRow[];
    events: boolean;
    now: number;
  },
): Promise<{ created: number; reactivated: number; updated: number }> {
  const unique = new Map<string, SubscriberImportRow>();
  for (const row of input.rows) unique.set(tokenHashKey(row.platform, row.tokenHash), row);
  const rows = [...unique.values()];
  const createdAt = toIso(input.now);
  let created = 0;
  let reactivated = 0;
  for (let start = 0; start < rows.length; start += IMPORT_ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + IMPORT_ROWS_PER_STATEMENT);
    const known = await knownSubscribers(
      trx,
      chunk.map((row) => ({ channelId: input.channelId, platform: row.platform, tokenHash: row.tokenHash })),
    );
    const existing = new Map(known.map((row) => [tokenHashKey(row.platform, row.token_hash), row]));
    const keys = chunk.map((row) => tokenHashKey(row.platform, row.tokenHash));
    const values: Subscriber[] = chunk.map((row, index) => ({
      id: existing.get(keys[index]!)?.id ?? newId('subscriber', input.now),
      account_id: input.accountId,
      channel_id: input.channelId,
      platform: row.platform,
      token: row.token,
      token_hash: row.tokenHash,
      push_to_start_token: row.pushToStartToken,
      os_version: row.osVersion ?? null,
      timezone: row.timezone,
      locale: row.locale,
      external_id: row.externalId,
      status: 'active',
      unsubscribe_reason: null,
      created_at: input.now,
      updated_at: input.now,
      unsubscribed_at: null,
      apns_environment: row.apnsEnvironment ?? null,
      last_delivered_at: null,
    }));
    // In index order, (platform, token hash): the INSERT then walks the (channel, platform, token hash) index from one
    // end to the other instead of jumping to a random page for every row (docs/performance.md, "Subscriber import"). Ids
    // and events keep the file's order. Sorted by the keys' strings (latin1: byte order): Buffer.compare, a call into
    // C++ per comparison, was 3% of the import's CPU profile.
    const order = keys.map((_, index) => index).sort((a, b) => (keys[a]! < keys[b]! ? -1 : 1));
    await upsertSubscribers(
      trx,
      order.map((index) => values[index]!),
    );
    await saveImportedPushToStartTokens(trx, chunk, values, input.now);
    const announced = values.filter((_, index) => existing.get(keys[index]!)?.status !== 'active');
    const inserted = keys.filter((key) => !existing.has(key)).length;
    created += inserted;
    reactivated += announced.length - inserted;
    if (input.events) {
      await recordEvents(
        trx,
        announced.map((subscriber) => ({
          accountId: input.accountId,
          type: 'subscriber.created',
          data: createdEventData(subscriber, input.channelCode, createdAt),
          now: input.now,
        })),
      );
    }
  }
  return { created, reactivated, updated: input.rows.length - created - reactivated };
}

/**
 * The per-template push-to-start tokens of a chunk's lines, as POST /subscribers with `template` saves them one at a
 * time: a few INSERT … ON CONFLICT DO UPDATE for the chunk (5 columns × 1,000 rows a statement), after its subscribers.
 */
async function saveImportedPushToStartTokens(
  trx: Kysely<Database>,
  chunk: readonly SubscriberImportRow[],
  saved: readonly Subscriber[],
  now: number,
): Promise<void> {
  const tokens = chunk.flatMap((row, index) =>
    Object.entries(row.pushToStartTokens ?? {}).map(([template, token]) => ({
      subscriber_id: saved[index]!.id,
      template,
      token,
      created_at: now,
      updated_at: now,
    })),
  );
  for (let start = 0; start < tokens.length; start += IMPORT_ROWS_PER_STATEMENT) {
    await trx
      .insertInto('push_to_start_tokens')
      .values(tokens.slice(start, start + IMPORT_ROWS_PER_STATEMENT))
      .onConflict((conflict) =>
        conflict
          .columns(['subscriber_id', 'template'])
          .doUpdateSet((eb) => ({ token: eb.ref('excluded.token'), updated_at: eb.ref('excluded.updated_at') })),
      )
      .execute();
  }
}

function createdEventData(subscriber: Subscriber, channelCode: string, createdAt: string): Record<string, unknown> {
  return {
    subscriberId: subscriber.id,
    channelCode,
    platform: subscriber.platform,
    externalId: subscriber.external_id,
    createdAt,
  };
}
