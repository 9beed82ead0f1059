import { loadConfig, type Config } from '../../src/config/load-config.ts';
import { resolveSecretKey } from '../../src/config/secret-key.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import type { Plan } from '../../src/domain/plans.ts';
import { buildApp } from '../../src/http/app.ts';
import { createApnsProviderTokens, type ApnsProviderTokens } from '../../src/delivery/apns/apns-provider-token.ts';
import { JobQueue } from '../../src/queue/job-queue.ts';
import type { ClarionApp } from '../../src/http/app-types.ts';
import { createAccount, setAccountPlan } from '../../src/store/accounts-queries.ts';
import { createApiKey } from '../../src/store/api-keys-queries.ts';
import { createChannel } from '../../src/store/channels-queries.ts';
import type { Store } from '../../src/store/database.ts';
import { openTestStore, type TestStore } from './test-store.ts';

export interface TestApp {
  app: ClarionApp;
  store: Store;
  queue: JobQueue;
  clock: ManualClock;
  config: Config;
  /** The PostgreSQL database's URL (undefined on SQLite, whose file is in config.dataDir), for a second connection to it. */
  databaseUrl: string | undefined;
  /** The instance key that seals secrets, generated into the test data dir (so `clarion serve` processes on it agree). */
  secretKey: Buffer;
  /** The APNs provider tokens the app's Test credentials signs with; a worker of the same test shares them, as in src/server.ts. */
  providerTokens: ApnsProviderTokens;
  /** A fresh account with a secret and a publishable key (all channels) and, optionally, channels. */
  newAccount(options?: NewAccountOptions): Promise<TestAccount>;
  close(): Promise<void>;
}

export interface NewAccountOptions {
  plan?: Plan;
  limit?: number;
  channels?: string[];
}

export interface TestAccount {
  id: string;
  secretKey: string;
  secretKeyId: string;
  publishableKey: string;
  /** Creates another key of this account. */
  key(options: {
    kind?: 'secret' | 'publishable';
    channels?: string[] | null;
    name?: string;
  }): Promise<{ id: string; value: string }>;
}

/**
 * The app on a real database of the dialect under test, with a manual clock (set to the real time at start),
 * open sign-up and a rate limit high enough that only the rate-limit tests meet it. Call close() in afterAll.
 */
export async function startTestApp(
  overrides: Partial<Config> = {},
  options: { isolatedDatabase?: boolean; databaseUrl?: string } = {},
): Promise<TestApp> {
  const testStore: TestStore = await openTestStore({
    isolated: options.isolatedDatabase ?? false,
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
  });
  const config: Config = {
    ...loadConfig({ CLARION_DATA_DIR: testStore.dataDir }),
    // Most tests sign users up freely; closed sign-up (the default) and the first-account exception have their own
    // tests (tests/api/auth/signup-403.test.ts, signup-201-first-account.test.ts), which pass signup: 'closed'.
    signup: 'open',
    rateLimitPerSecond: 10_000,
    rateLimitBurst: 10_000,
    publishableRateLimitPerAddress: 10_000,
    publishableRateLimitBurst: 10_000,
    publishableRateLimit: 10_000,
    ...overrides,
  };
  const clock = new ManualClock(Date.now());
  const queue = JobQueue.forStore(testStore.store, clock);
  const secretKey = resolveSecretKey(config.secretKey, config.dataDir);
  const providerTokens = createApnsProviderTokens(clock);
  const app = await buildApp({ store: testStore.store, config, clock, queue, secretKey, providerTokens });
  await app.ready();
  const store = testStore.store;

  return {
    app,
    store,
    queue,
    clock,
    config,
    databaseUrl: testStore.databaseUrl,
    secretKey,
    providerTokens,
    async newAccount(options = {}) {
      const now = clock.now();
      const account = await createAccount(store.db, { name: 'Test account', plan: options.plan ?? 'business', now });
      if (options.limit !== undefined)
        await setAccountPlan(store.db, account.id, options.plan ?? 'business', options.limit);
      for (const code of options.channels ?? []) {
        await createChannel(store.db, { accountId: account.id, code, name: code, description: null, now });
      }
      const key = async ({
        kind = 'secret',
        channels = null,
        name = 'test key',
      }: {
        kind?: 'secret' | 'publishable';
        channels?: string[] | null;
        name?: string;
      }) => {
        const created = await createApiKey(store.db, { accountId: account.id, name, kind, channels, now: clock.now() });
        return { id: created.row.id, value: created.value };
      };
      const secret = await key({ kind: 'secret' });
      const publishable = await key({ kind: 'publishable' });
      return {
        id: account.id,
        secretKey: secret.value,
        secretKeyId: secret.id,
        publishableKey: publishable.value,
        key,
      };
    },
    async close() {
      await app.close();
      await testStore.close();
    },
  };
}
