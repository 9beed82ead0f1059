import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

export interface TestStore {
  store: Store;
  dataDir: string;
  databaseUrl: string | undefined;
  close(): Promise<void>;
}

/** A migrated store on the dialect under test: a new SQLite file in a temp dir, or the run's PostgreSQL database. */
export async function openTestStore(): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clarion-test-'));
  const databaseUrl = inject('postgresUrl') ?? undefined;
  const store = openStore({ databaseUrl, dataDir, poolSize: 5 });
  if (!databaseUrl) await migrateToLatest(store);
  return {
    store,
    dataDir,
    databaseUrl,
    async close() {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
