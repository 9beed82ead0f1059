import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { deviceTokenHash } from '../../src/domain/device-token.ts';
import { newId } from '../../src/domain/ids.ts';
import { createAccount, setAccountPlan } from '../../src/store/accounts-queries.ts';
import { createApiKey } from '../../src/store/api-keys-queries.ts';
import { createChannel } from '../../src/store/channels-queries.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

/** A fresh database for one benchmark run: a SQLite file in a temporary directory, or a new PostgreSQL database. */
export interface BenchDatabase {
  dataDir: string;
  /** Set for PostgreSQL. */
  databaseUrl: string | undefined;
  store: Store;
  /** The environment that points `clarion serve` at it. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export async function createBenchDatabase(postgresUrl: string | undefined): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clarion-bench-'));
  let databaseUrl: string | undefined;
  let name: string | undefined;
  if (postgresUrl) {
    name = `clarion_bench_${Date.now()}_${process.pid}`;
    await adminQuery(postgresUrl, `CREATE DATABASE ${name}`);
    const url = new URL(postgresUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  const store = openStore({ databaseUrl, dataDir });
  await migrateToLatest(store);
  return {
    dataDir,
    databaseUrl,
    store,
    env: { CLARION_DATA_DIR: dataDir, ...(databaseUrl ? { CLARION_DATABASE_URL: databaseUrl } : {}) },
    async drop() {
      await store.close().catch(() => {});
      if (postgresUrl && name) await adminQuery(postgresUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function adminQuery(url: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

export interface BenchAccount {
  accountId: string;
  secretKey: string;
}

/** An account on the business plan with a limit no benchmark reaches, and one unscoped secret key. */
export async function seedAccount(store: Store): Promise<BenchAccount> {
  const now = Date.now();
  const account = await createAccount(store.db, { name: 'bench', plan: 'business', now });
  await setAccountPlan(store.db, account.id, 'business', 1_000_000_000);
  const key = await createApiKey(store.db, {
    accountId: account.id,
    name: 'bench',
    kind: 'secret',
    channels: null,
    now,
  });
  return { accountId: account.id, secretKey: key.value };
}

/** The channel of the accept-path benchmarks: one Android subscriber, so a notification to it is one push. */
export const ONE_PUSH_CHANNEL = 'one';

/** The notification those benchmarks send, as an order-shipped event would be sent. */
export const ONE_PUSH_NOTIFICATION = {
  channelCode: ONE_PUSH_CHANNEL,
  title: 'Order shipped',
  body: 'Your order #1234 is on its way.',
};

/** Seeds the one-subscriber channel the accept-path benchmarks send to. */
export function seedOnePushChannel(store: Store, accountId: string): Promise<string> {
  return seedChannel(store, accountId, { code: ONE_PUSH_CHANNEL, subscribers: 1, platform: 'android' });
}

/** The stores a benchmark runs on: SQLite, and PostgreSQL too when given a URL. */
export function benchDialects(postgresUrl: string | undefined): ReadonlyArray<'sqlite' | 'postgres'> {
  return postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * A channel with `subscribers` active subscribers, inserted 500 rows per statement. `platform` 'mixed' alternates
 * iOS and Android; tokens are unique across channels (the code is part of each).
 */
export async function seedChannel(
  store: Store,
  accountId: string,
  input: { code: string; subscribers: number; platform: 'android' | 'mixed' },
): Promise<string> {
  const now = Date.now();
  const channel = await createChannel(store.db, {
    accountId,
    code: input.code,
    name: input.code,
    description: null,
    now,
  });
  for (let start = 0; start < input.subscribers; start += 500) {
    const rows = [];
    for (let n = start; n < Math.min(input.subscribers, start + 500); n += 1) {
      const platform = input.platform === 'mixed' && n % 2 === 0 ? ('ios' as const) : ('android' as const);
      const token =
        platform === 'ios'
          ? `${Buffer.from(input.code).toString('hex')}${n.toString(16)}`.padStart(64, '0')
          : `${input.code}-token-${n}`;
      rows.push({
        id: newId('subscriber', now),
        account_id: accountId,
        channel_id: channel.id,
        platform,
        token,
        token_hash: deviceTokenHash(token),
        push_to_start_token: null,
        timezone: null,
        locale: null,
        external_id: null,
        status: 'active' as const,
        unsubscribe_reason: null,
        created_at: now,
        updated_at: now,
        unsubscribed_at: null,
      });
    }
    await store.db.insertInto('subscribers').values(rows).execute();
  }
  return channel.id;
}
