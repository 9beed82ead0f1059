import { loadConfig, type Config } from '../config/load-config.ts';
import { openStore, type Store } from '../store/database.ts';
import { migrateToLatest } from '../store/migrate.ts';

/**
 * Opens the same database the server uses (CLARION_DATABASE_URL or the SQLite file in CLARION_DATA_DIR),
 * brings it to the latest schema, runs `work` and closes it. SQLite's WAL mode and busy timeout let this run
 * beside a live server.
 */
export async function withStore<T>(
  work: (store: Store, config: Config) => Promise<T>,
  options: { migrate?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    if (options.migrate !== false) await migrateToLatest(store);
    return await work(store, config);
  } finally {
    await store.close();
  }
}
