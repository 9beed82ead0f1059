import { instanceHasAccounts } from '../store/accounts-queries.ts';
import type { AppDependencies } from './app-types.ts';

/**
 * Who may create an account from the dashboard, as GET /api/v1/auth/session reports it:
 * - `open` (CLARION_SIGNUP=open): anyone who reaches the instance gets a Free account that sends through the
 *   operator's APNs, FCM and Web Push credentials — the reason it is not the default.
 * - `closed` (the default): accounts come from the CLI (`clarion accounts create`) …
 * - `first-account`: … except while the instance has no account at all, when the dashboard offers to create the
 *   first one, the operator's, as Gitea's and Grafana's first-run pages do. The first sign-up closes it.
 * The first-account window is open to whoever reaches the dashboard first, so while it is open an instance without
 * CLARION_HOST listens on loopback only (src/http/listen-on.ts; docs/deploy.md).
 */
export type SignupState = 'open' | 'closed' | 'first-account';

export async function signupState(deps: Pick<AppDependencies, 'config' | 'store'>): Promise<SignupState> {
  if (deps.config.signup === 'open') return 'open';
  return (await instanceHasAccounts(deps.store.db)) ? 'closed' : 'first-account';
}
