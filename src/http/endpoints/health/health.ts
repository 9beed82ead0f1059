import type { Kysely } from 'kysely';
import Type from 'typebox';
import { newId } from '../../../domain/ids.ts';
import type { Database } from '../../../store/schema.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies, ClarionApp } from '../../app-types.ts';
import { errorResponses } from '../../schemas.ts';

const Health = Type.Object({ status: Type.Literal('ok') });

/**
 * /healthz: the process answers. /readyz: storage answers and can store (a full disk or a read-only database makes
 * every accepted notification fail), and the server is not shutting down.
 */
export function registerHealth(app: ClarionApp, deps: AppDependencies, isClosing: () => boolean): void {
  app.get(
    '/healthz',
    { config: { auth: 'none' }, schema: { summary: 'Liveness', tags: ['operations'], response: { 200: Health } } },
    async () => ({
      status: 'ok' as const,
    }),
  );

  app.get(
    '/readyz',
    {
      config: { auth: 'none' },
      schema: {
        summary: 'Readiness: storage reachable and writable',
        tags: ['operations'],
        response: { 200: Health, ...errorResponses(503) },
      },
    },
    async (request) => {
      if (isClosing()) throw new ApiError('unavailable', { message: 'Shutting down.' });
      try {
        await probeWrite(deps.store.db, deps.clock.now());
      } catch (error) {
        const reachable = await deps.store.db
          .selectFrom('jobs')
          .select('id')
          .limit(1)
          .execute()
          .then(
            () => true,
            () => false,
          );
        request.log.warn(
          { err: error },
          reachable ? 'readiness check: storage is not writable' : 'readiness check: storage unreachable',
        );
        throw new ApiError('unavailable', {
          message: reachable ? 'Storage is not writable.' : 'Storage is unreachable.',
        });
      }
      return { status: 'ok' as const };
    },
  );
}

/**
 * A write that leaves nothing behind: one row inserted into `jobs` and deleted again, committed. A rolled-back write
 * would not do: SQLite writes pages (to the WAL) only at commit, so only a commit meets SQLITE_FULL; PostgreSQL
 * likewise needs WAL space (53100 disk_full) and refuses the INSERT on a read-only standby (25006). The row is never
 * visible to a worker: it is a finished job of a kind nobody runs, gone when the transaction commits.
 */
async function probeWrite(db: Kysely<Database>, now: number): Promise<void> {
  const id = newId('job', now);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('jobs')
      .values({
        id,
        kind: 'readyz.probe',
        payload: 'null',
        state: 'completed',
        run_at: now,
        attempt: 0,
        max_attempts: 0,
        lease_owner: null,
        lease_expires_at: null,
        errors: '[]',
        unique_key: null,
        created_at: now,
        updated_at: now,
        finalized_at: now,
      })
      .execute();
    await trx.deleteFrom('jobs').where('id', '=', id).execute();
  });
}
