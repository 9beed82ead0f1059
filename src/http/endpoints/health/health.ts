import { sql } from 'kysely';
import Type from 'typebox';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies, ClarionApp } from '../../app-types.ts';
import { errorResponses } from '../../schemas.ts';

const Health = Type.Object({ status: Type.Literal('ok') });

/** /healthz: the process answers. /readyz: storage answers too, and the server is not shutting down. */
export function registerHealth(app: ClarionApp, deps: AppDependencies, isClosing: () => boolean): void {
  app.get('/healthz', { config: { auth: 'none' }, schema: { summary: 'Liveness', tags: ['operations'], response: { 200: Health } } }, async () => ({
    status: 'ok' as const,
  }));

  app.get(
    '/readyz',
    { config: { auth: 'none' }, schema: { summary: 'Readiness: storage reachable', tags: ['operations'], response: { 200: Health, ...errorResponses(503) } } },
    async (request) => {
      if (isClosing()) throw new ApiError('unavailable', { message: 'Shutting down.' });
      try {
        await sql`select 1`.execute(deps.store.db);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check: storage unreachable');
        throw new ApiError('unavailable', { message: 'Storage is unreachable.' });
      }
      return { status: 'ok' as const };
    },
  );
}
