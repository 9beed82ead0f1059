import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { csrfTokenFor } from '../../../domain/session-token.ts';
import type { SessionRow } from '../../../store/sessions-queries.ts';
import { findUser, listUserAccounts, type UserAccount } from '../../../store/users-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { Nullable, StringEnum, Timestamp } from '../../schemas.ts';
import { signupState } from '../../signup-policy.ts';

const AccountSummary = Type.Object(
  {
    id: Type.String({ description: 'acc_… identifier.' }),
    name: Type.String(),
    plan: Type.String({ description: 'free, starter, pro or business.' }),
    role: StringEnum(['owner', 'member'] as const),
  },
  { title: 'AccountSummary' },
);

export const SessionState = Type.Object(
  {
    signup: StringEnum(['open', 'closed', 'first-account'] as const, {
      description:
        "Who may sign up from the dashboard: open (anyone, CLARION_SIGNUP=open), closed (accounts come from the CLI), or first-account (closed, but the instance has no account yet: the first sign-up creates the operator's account).",
    }),
    session: Nullable(
      Type.Object({
        user: Type.Object({ id: Type.String({ description: 'usr_… identifier.' }), email: Type.String() }),
        account: AccountSummary,
        accounts: Type.Array(AccountSummary, {
          description: 'Every account the user belongs to; switch with POST /api/v1/auth/switch-account.',
        }),
        csrfToken: Type.String({
          description: 'Send as the X-CSRF-Token header on every request of this session that changes something.',
        }),
        expiresAt: Timestamp,
      }),
    ),
  },
  { title: 'SessionState', description: 'The dashboard session of this browser (null when signed out).' },
);

export type SessionStateView = Static<typeof SessionState>;

function accountSummary(account: UserAccount): Static<typeof AccountSummary> {
  return { id: account.accountId, name: account.name, plan: account.plan, role: account.role };
}

/** What the dashboard needs to know about its session; `token` is the cookie value (for the CSRF token). */
export async function sessionState(
  deps: AppDependencies,
  session: { row: SessionRow; token: string } | null,
): Promise<SessionStateView> {
  const signup = await signupState(deps);
  if (!session) return { signup, session: null };
  const { row, token } = session;
  const user = await findUser(deps.store.db, row.user_id);
  const accounts = await listUserAccounts(deps.store.db, row.user_id);
  const current = accounts.find((account) => account.accountId === row.account_id);
  if (!user || !current) return { signup, session: null };
  return {
    signup,
    session: {
      user: { id: user.id, email: user.email },
      account: accountSummary(current),
      accounts: accounts.map(accountSummary),
      csrfToken: csrfTokenFor(token),
      expiresAt: toIso(row.expires_at),
    },
  };
}
