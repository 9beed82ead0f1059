import { Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Dialect, Store } from './database.ts';
import { statements as postgresCore } from './migrations/postgres/0001-core.ts';
import { statements as postgresJobs } from './migrations/postgres/0002-jobs.ts';
import { statements as postgresWebhooks } from './migrations/postgres/0003-webhooks.ts';
import { statements as postgresLiveActivities } from './migrations/postgres/0004-live-activities.ts';
import { statements as postgresDashboard } from './migrations/postgres/0005-dashboard.ts';
import { statements as postgresScheduling } from './migrations/postgres/0006-scheduling.ts';
import { statements as postgresIdempotencyPrincipal } from './migrations/postgres/0007-idempotency-principal.ts';
import { statements as postgresWebPush } from './migrations/postgres/0008-web-push.ts';
import { statements as postgresJoinPages } from './migrations/postgres/0009-join-pages.ts';
import { statements as postgresSubscriberDispatchIndex } from './migrations/postgres/0010-subscriber-dispatch-index.ts';
import { statements as postgresNotificationIcon } from './migrations/postgres/0011-notification-icon.ts';
import { statements as postgresApps } from './migrations/postgres/0012-apps.ts';
import { statements as postgresAudience } from './migrations/postgres/0013-audience.ts';
import { statements as postgresLiveActivityBroadcast } from './migrations/postgres/0014-live-activity-broadcast.ts';
import { statements as postgresLastDelivered } from './migrations/postgres/0016-last-delivered.ts';
import { statements as postgresBinaryTokenHash } from './migrations/postgres/0017-binary-token-hash.ts';
import { statements as postgresJobLanes } from './migrations/postgres/0018-job-lanes.ts';
import { statements as sqliteCore } from './migrations/sqlite/0001-core.ts';
import { statements as sqliteJobs } from './migrations/sqlite/0002-jobs.ts';
import { statements as sqliteWebhooks } from './migrations/sqlite/0003-webhooks.ts';
import { statements as sqliteLiveActivities } from './migrations/sqlite/0004-live-activities.ts';
import { statements as sqliteDashboard } from './migrations/sqlite/0005-dashboard.ts';
import { statements as sqliteScheduling } from './migrations/sqlite/0006-scheduling.ts';
import { statements as sqliteIdempotencyPrincipal } from './migrations/sqlite/0007-idempotency-principal.ts';
import { statements as sqliteWebPush } from './migrations/sqlite/0008-web-push.ts';
import { statements as sqliteJoinPages } from './migrations/sqlite/0009-join-pages.ts';
import { statements as sqliteSubscriberDispatchIndex } from './migrations/sqlite/0010-subscriber-dispatch-index.ts';
import { statements as sqliteNotificationIcon } from './migrations/sqlite/0011-notification-icon.ts';
import { statements as sqliteApps } from './migrations/sqlite/0012-apps.ts';
import { statements as sqliteAudience } from './migrations/sqlite/0013-audience.ts';
import { statements as sqliteLiveActivityBroadcast } from './migrations/sqlite/0014-live-activity-broadcast.ts';
import { statements as sqliteLastDelivered } from './migrations/sqlite/0016-last-delivered.ts';
import { statements as sqliteBinaryTokenHash } from './migrations/sqlite/0017-binary-token-hash.ts';
import { statements as sqliteJobLanes } from './migrations/sqlite/0018-job-lanes.ts';

/**
 * Migrations are plain SQL per dialect (src/store/migrations/<dialect>/NNNN-name.ts, each exporting `statements`),
 * listed here in order. Kysely's Migrator records what ran and holds a lock, so several processes starting at once
 * against one PostgreSQL database apply each migration exactly once.
 */
const migrations: Record<Dialect, Record<string, string[]>> = {
  sqlite: {
    '0001-core': sqliteCore,
    '0002-jobs': sqliteJobs,
    '0003-webhooks': sqliteWebhooks,
    '0004-live-activities': sqliteLiveActivities,
    '0005-dashboard': sqliteDashboard,
    '0006-scheduling': sqliteScheduling,
    '0007-idempotency-principal': sqliteIdempotencyPrincipal,
    '0008-web-push': sqliteWebPush,
    '0009-join-pages': sqliteJoinPages,
    '0010-subscriber-dispatch-index': sqliteSubscriberDispatchIndex,
    '0011-notification-icon': sqliteNotificationIcon,
    '0012-apps': sqliteApps,
    '0013-audience': sqliteAudience,
    '0014-live-activity-broadcast': sqliteLiveActivityBroadcast,
    '0016-last-delivered': sqliteLastDelivered,
    '0017-binary-token-hash': sqliteBinaryTokenHash,
    '0018-job-lanes': sqliteJobLanes,
  },
  postgres: {
    '0001-core': postgresCore,
    '0002-jobs': postgresJobs,
    '0003-webhooks': postgresWebhooks,
    '0004-live-activities': postgresLiveActivities,
    '0005-dashboard': postgresDashboard,
    '0006-scheduling': postgresScheduling,
    '0007-idempotency-principal': postgresIdempotencyPrincipal,
    '0008-web-push': postgresWebPush,
    '0009-join-pages': postgresJoinPages,
    '0010-subscriber-dispatch-index': postgresSubscriberDispatchIndex,
    '0011-notification-icon': postgresNotificationIcon,
    '0012-apps': postgresApps,
    '0013-audience': postgresAudience,
    '0014-live-activity-broadcast': postgresLiveActivityBroadcast,
    '0016-last-delivered': postgresLastDelivered,
    '0017-binary-token-hash': postgresBinaryTokenHash,
    '0018-job-lanes': postgresJobLanes,
  },
};

class SqlMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(
      Object.entries(migrations[this.dialect]).map(([name, statements]) => [
        name,
        {
          async up(db) {
            for (const statement of statements) await sql.raw(statement).execute(db);
          },
        } satisfies Migration,
      ]),
    );
  }
}

export interface MigrationOutcome {
  applied: string[];
}

/**
 * Applies every pending migration; throws with the failing migration's name and cause. `upTo` stops after the named
 * migration: a database as an earlier version left it, for tests that migrate existing data (tests/store/*-migration.test.ts).
 */
export async function migrateToLatest(store: Store, options: { upTo?: string } = {}): Promise<MigrationOutcome> {
  const migrator = new Migrator({ db: store.db, provider: new SqlMigrationProvider(store.dialect) });
  const result: MigrationResultSet = options.upTo ? await migrator.migrateTo(options.upTo) : await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((entry) => entry.status === 'Error');
    const cause = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${cause}`, { cause: result.error });
  }
  return { applied: (result.results ?? []).filter((entry) => entry.status === 'Success').map((entry) => entry.migrationName) };
}
