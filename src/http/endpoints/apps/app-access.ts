import { findApp, type App } from '../../../store/apps-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { IdParams } from '../../schemas.ts';

/** Path parameter of the /apps/{id} routes. */
export const AppIdParams = IdParams('app');

/**
 * Apps hold the credentials of every channel bound to them, so only a secret key without a channel scope (or a
 * dashboard session) manages them. Checked before any lookup, so the answer does not depend on whether the app exists.
 */
export function assertAppManager(auth: AuthContext): void {
  if (auth.channels !== null)
    throw new ApiError('forbidden', {
      message: 'Apps hold the credentials of every channel: manage them with a secret key that has no channel scope.',
    });
}

/** The caller's app, or 404 not_found (also for another account's id). */
export async function loadApp(deps: AppDependencies, auth: AuthContext, id: string): Promise<App> {
  assertAppManager(auth);
  const app = await findApp(deps.store.db, auth.accountId, id);
  if (!app) throw new ApiError('not_found', { message: 'No app with that id.' });
  return app;
}
