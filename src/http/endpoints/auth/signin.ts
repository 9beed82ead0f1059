import { randomUUID } from 'node:crypto';
import Type from 'typebox';
import { SIGNIN_RETENTION_MS } from '../../../domain/signin-limits.ts';
import { hashPassword, verifyPassword } from '../../../domain/passwords.ts';
import { deleteEndedSessions } from '../../../store/sessions-queries.ts';
import {
  clearSigninFailures,
  pruneSigninAttempts,
  recordSigninAttempt,
} from '../../../store/signin-attempts-queries.ts';
import { findUserByEmail, listUserAccounts } from '../../../store/users-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { assertNotCrossSite } from '../../session-auth.ts';
import { assertSigninAllowed, emailHashOf } from '../../signin-rate-limit.ts';
import { sessionState, SessionState } from './session-view.ts';
import { Email, Password } from './signup.ts';
import { startSession } from './start-session.ts';

/**
 * An unknown email still costs one scrypt verification (against this hash of a random password), so the answer
 * time does not tell which emails have users.
 */
let decoyHash: Promise<string> | null = null;
const decoy = () => (decoyHash ??= hashPassword(randomUUID()));

export function signinEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      onRequest: async (request) => assertNotCrossSite(request),
      schema: {
        summary: 'Sign in with email and password (dashboard)',
        description:
          "Sets the HttpOnly session cookie and returns the session with its CSRF token; the session acts for the user's first account (switch with POST /api/v1/auth/switch-account). Throttled per (email, client address) with growing delays, and per client address: 429 with Retry-After. Never locks the account for everyone.",
        tags: ['dashboard'],
        body: Type.Object({ email: Email, password: Password }, { additionalProperties: false }),
        response: { 200: Success(SessionState), ...errorResponses(400, 401, 403, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      const now = deps.clock.now();
      const emailHash = emailHashOf(email);
      await assertSigninAllowed(deps.store.db, { ip: request.ip, emailHash, now });

      const user = await findUserByEmail(deps.store.db, email);
      let valid = false;
      if (user) valid = await verifyPassword(password, user.password_hash);
      else await verifyPassword(password, await decoy());
      if (!user || !valid) {
        await recordSigninAttempt(deps.store.db, { kind: 'signin_failure', emailHash, ip: request.ip, now });
        throw new ApiError('unauthorized', {
          message: 'Wrong email or password.',
          headers: { 'www-authenticate': 'Bearer' },
        });
      }
      const accounts = await listUserAccounts(deps.store.db, user.id);
      const first = accounts[0];
      if (!first)
        throw new ApiError('forbidden', {
          message: 'This user belongs to no account; ask an account owner to add you again.',
        });

      await clearSigninFailures(deps.store.db, { emailHash, ip: request.ip });
      // Housekeeping on the way: ended sessions and attempts outside the window are of no further use.
      await pruneSigninAttempts(deps.store.db, now - SIGNIN_RETENTION_MS);
      await deleteEndedSessions(deps.store.db, now);
      const session = await startSession(deps, request, reply, { userId: user.id, accountId: first.accountId });
      return { success: true as const, data: await sessionState(deps, session) };
    },
  );
}
