import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { createIsolatedDatabase } from './isolated-database.ts';
import { openTestStores } from './open-test-stores.ts';

export interface TestStore {
  store: Store;
  dataDir: string;
  databaseUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * A migrated store on the dialect under test: a new SQLite file in a temp dir, or the run's PostgreSQL database
 * (`isolated`: a PostgreSQL database of its own, see isolated-database.ts; `databaseUrl`: that PostgreSQL database,
 * migrated here, e.g. on a server the test starts itself, tests/harness/private-postgres.ts).
 */
export async function openTestStore(options: { isolated?: boolean; databaseUrl?: string } = {}): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clarion-test-'));
  const shared = options.databaseUrl ? undefined : (inject('postgresUrl') ?? undefined);
  const own = shared && options.isolated ? await createIsolatedDatabase() : null;
  const databaseUrl = options.databaseUrl ?? own?.url ?? shared;
  const store = openStore({ databaseUrl, dataDir, poolSize: 5 });
  if (!databaseUrl || own || options.databaseUrl) await migrateToLatest(store);
  const testStore: TestStore = {
    store,
    dataDir,
    databaseUrl,
    async close() {
      openTestStores.delete(testStore);
      await store.close();
      await own?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  openTestStores.add(testStore);
  return testStore;
}
