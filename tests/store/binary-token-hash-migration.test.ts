import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeToken } from '../../src/domain/device-token.ts';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { importSubscribers, registerSubscriber } from '../../src/store/subscribers-queries.ts';
import { createIsolatedDatabase } from '../harness/isolated-database.ts';
import { testDialect } from '../harness/test-dialect.ts';

/**
 * Migration 0017 on a database the previous version made: subscribers whose token_hash is 64 hex characters, with
 * rows of other tables referring to them, keep their ids, details and children, and the same devices registering or
 * being imported again find them (the hash as bytes is the hash the hex spelled).
 */
let store: Store;
let dataDir: string;
let dropDatabase: (() => Promise<void>) | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'clarion-migration-'));
  const own = testDialect === 'postgres' ? await createIsolatedDatabase() : undefined;
  dropDatabase = own?.drop;
  store = openStore({ databaseUrl: own?.url, dataDir });
  await migrateToLatest(store, { upTo: '0016-last-delivered' });
});
afterAll(async () => {
  await store?.close();
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const hexHash = (value: string) => createHash('sha256').update(value).digest('hex');
const iosToken = 'ab'.repeat(32);
const androidToken = 'fcm-registration-token-1';

describe('migration 0017: subscribers.token_hash as 32 bytes', () => {
  it('converts the hex hashes of existing subscribers, keeping their rows and the rows that refer to them', async () => {
    const now = Date.now();
    const account = await createAccount(store.db, { name: 'old', plan: 'business', now });
    // As the previous version wrote them, by statements of that schema: the channel, and the hash in hex.
    const channel = { id: 'chn_01jbinaryhashchannel0000000' };
    await sql`INSERT INTO channels (id, account_id, code, name, description, created_at)
      VALUES (${channel.id}, ${account.id}, 'news', 'news', NULL, ${now})`.execute(store.db);
    for (const [id, platform, token, externalId] of [
      ['sub_01jbinaryhashios0000000000', 'ios', iosToken, 'u-1'],
      ['sub_01jbinaryhashandroid000000', 'android', androidToken, null],
    ] as const) {
      await sql`INSERT INTO subscribers (id, account_id, channel_id, platform, token, token_hash, status, external_id, created_at, updated_at)
        VALUES (${id}, ${account.id}, ${channel.id}, ${platform}, ${token}, ${hexHash(token)}, 'active', ${externalId}, ${now}, ${now})`.execute(
        store.db,
      );
    }
    await sql`INSERT INTO subscriber_tags (subscriber_id, tag) VALUES ('sub_01jbinaryhashios0000000000', 'vip')`.execute(
      store.db,
    );
    await sql`INSERT INTO push_to_start_tokens (subscriber_id, template, token, created_at, updated_at)
      VALUES ('sub_01jbinaryhashios0000000000', 'delivery', ${'cd'.repeat(32)}, ${now}, ${now})`.execute(store.db);

    // This one, and any later migration.
    expect((await migrateToLatest(store)).applied[0]).toBe('0017-binary-token-hash');

    const rows = await store.db
      .selectFrom('subscribers')
      .select(['id', 'platform', 'token_hash', 'external_id'])
      .where('channel_id', '=', channel.id)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      {
        id: 'sub_01jbinaryhashandroid000000',
        platform: 'android',
        token_hash: createHash('sha256').update(androidToken).digest(),
        external_id: null,
      },
      {
        id: 'sub_01jbinaryhashios0000000000',
        platform: 'ios',
        token_hash: createHash('sha256').update(iosToken).digest(),
        external_id: 'u-1',
      },
    ]);
    expect(await store.db.selectFrom('subscriber_tags').selectAll().execute()).toEqual([
      { subscriber_id: 'sub_01jbinaryhashios0000000000', tag: 'vip' },
    ]);
    expect(await store.db.selectFrom('push_to_start_tokens').select(['subscriber_id', 'template']).execute()).toEqual([
      { subscriber_id: 'sub_01jbinaryhashios0000000000', template: 'delivery' },
    ]);
    if (store.dialect === 'sqlite') {
      // The rebuild switched foreign keys off for itself only, and left none dangling.
      expect((await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(store.db)).rows).toEqual([
        { foreign_keys: 1 },
      ]);
      expect((await sql`PRAGMA foreign_key_check`.execute(store.db)).rows).toEqual([]);
      const indexes = await sql<{
        name: string;
      }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'subscribers' ORDER BY name`.execute(
        store.db,
      );
      expect(indexes.rows.map((row) => row.name)).toEqual([
        'sqlite_autoindex_subscribers_1',
        'sqlite_autoindex_subscribers_2',
        'subscribers_dispatch',
        'subscribers_external_id',
      ]);
    }

    // The same devices again: registration and import find the migrated subscribers instead of adding new ones.
    const ios = normalizeToken('ios', iosToken.toUpperCase());
    const android = normalizeToken('android', androidToken);
    if (!ios.ok || !android.ok) throw new Error('test tokens are valid');
    const registered = await store.db.transaction().execute((trx) =>
      registerSubscriber(trx, {
        accountId: account.id,
        channelId: channel.id,
        channelCode: 'news',
        platform: 'ios',
        ...ios.value,
        pushToStartToken: null,
        timezone: null,
        locale: null,
        externalId: 'u-1',
        now,
      }),
    );
    expect(registered).toMatchObject({ created: false, subscriber: { id: 'sub_01jbinaryhashios0000000000' } });
    const imported = await store.db.transaction().execute((trx) =>
      importSubscribers(trx, {
        accountId: account.id,
        channelId: channel.id,
        channelCode: 'news',
        rows: [
          {
            platform: 'android',
            ...android.value,
            pushToStartToken: null,
            timezone: 'Europe/Berlin',
            locale: null,
            externalId: null,
          },
        ],
        events: false,
        now,
      }),
    );
    expect(imported).toEqual({ created: 0, reactivated: 0, updated: 1 });
    expect(
      Number(
        (
          await store.db
            .selectFrom('subscribers')
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .executeTakeFirstOrThrow()
        ).count,
      ),
    ).toBe(2);
  });
});
