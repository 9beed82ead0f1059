import pino, { type Logger } from 'pino';
import type { Config } from './config/load-config.ts';
import { redactUrl } from './config/load-config.ts';
import { resolveSecretKey } from './config/secret-key.ts';
import { systemClock } from './domain/clock.ts';
import { buildApp } from './http/app.ts';
import type { ClarionApp } from './http/app-types.ts';
import { openStore } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';

export interface RunningServer {
  app: ClarionApp | null;
  address: string | null;
  logger: Logger;
  /** Stops taking requests, lets in-flight ones finish, then closes the database. */
  close(): Promise<void>;
}

export interface ServeRoles {
  api: boolean;
  worker: boolean;
}

/** Opens storage, migrates it, and starts the roles asked for. The only place that listens on a port. */
export async function startServer(config: Config, roles: ServeRoles): Promise<RunningServer> {
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] });
  resolveSecretKey(config.secretKey, config.dataDir);
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const { applied } = await migrateToLatest(store);
  logger.info(
    { dialect: store.dialect, database: config.databaseUrl ? redactUrl(config.databaseUrl) : config.dataDir, applied },
    'storage ready',
  );

  let app: ClarionApp | null = null;
  let address: string | null = null;
  if (roles.api) {
    app = await buildApp({ store, config, clock: systemClock, loggerInstance: logger });
    address = await app.listen({ port: config.port, host: config.host });
  }
  return {
    app,
    address,
    logger,
    async close() {
      if (app) await app.close();
      await store.close();
    },
  };
}
