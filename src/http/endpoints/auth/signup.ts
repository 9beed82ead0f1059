import Type from 'typebox';
import { EMAIL_MAX_LENGTH, isEmailAddress } from '../../../domain/email-address.ts';
import { hashPassword, passwordProblem } from '../../../domain/passwords.ts';
import type { FieldProblem } from '../../../domain/schema-errors.ts';
import { createAccount, instanceHasAccounts } from '../../../store/accounts-queries.ts';
import { recordSigninAttempt } from '../../../store/signin-attempts-queries.ts';
import { isUniqueViolation } from '../../../store/store-errors.ts';
import { addMembership, createUser, findUserByEmail, normalizeEmail } from '../../../store/users-queries.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success } from '../../schemas.ts';
import { assertNotCrossSite } from '../../session-auth.ts';
import { assertSigninAllowed, emailHashOf } from '../../signin-rate-limit.ts';
import { signupState } from '../../signup-policy.ts';
import { sessionState, SessionState } from './session-view.ts';
import { startSession } from './start-session.ts';

export const Email = Type.String({
  minLength: 1,
  maxLength: EMAIL_MAX_LENGTH,
  description: 'Email address (compared without regard to case).',
});
/** Long enough for any passphrase; passwordProblem() states the real rules. The bound keeps scrypt's input small. */
export const Password = Type.String({ minLength: 1, maxLength: 1000, description: 'Password: 10 to 200 characters.' });

function signupClosed(): ApiError {
  return new ApiError('forbidden', { message: 'Sign-up is closed on this instance; ask its operator for an account.' });
}

function emailTaken(): ApiError {
  return new ApiError('conflict', {
    message: 'A user with this email already exists; sign in instead.',
    details: { field: 'email' },
  });
}

export function signupEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      onRequest: async (request) => {
        assertNotCrossSite(request);
        if ((await signupState(deps)) === 'closed') throw signupClosed();
      },
      schema: {
        summary: 'Sign up: a new user with a new account on the Free plan, signed in (dashboard)',
        description:
          "Only while CLARION_SIGNUP=open, or, when it is closed (the default), for the first account of an instance that has none (the operator's). Sets the HttpOnly session cookie and returns the session with its CSRF token. No key needed. Counts against the per-address sign-in rate limit.",
        tags: ['dashboard'],
        body: Type.Object(
          {
            email: Email,
            password: Password,
            accountName: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 100,
                description: 'Name of the new account (your company or project); defaults to the email.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: Success(SessionState), ...errorResponses(400, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const { password } = request.body;
      const email = normalizeEmail(request.body.email);
      const accountName = request.body.accountName?.trim() || email;
      const problems: FieldProblem[] = [];
      if (!isEmailAddress(email))
        problems.push({ field: 'email', message: 'must be an email address, like ada@example.com' });
      const weak = passwordProblem(password);
      if (weak) problems.push({ field: 'password', message: weak });
      if (problems.length > 0) throw validationFailed(problems);

      const now = deps.clock.now();
      await assertSigninAllowed(deps.store.db, { ip: request.ip, emailHash: null, now });
      // Recorded before the email is checked: probing which emails exist costs attempts like guessing passwords.
      await recordSigninAttempt(deps.store.db, { kind: 'signup', emailHash: emailHashOf(email), ip: request.ip, now });
      if (await findUserByEmail(deps.store.db, email)) throw emailTaken();

      const passwordHash = await hashPassword(password);
      let created: { userId: string; accountId: string };
      try {
        created = await deps.store.db.transaction().execute(async (trx) => {
          // The first-account exception holds once: re-checked under a lock, so a second sign-up racing the first
          // finds the account the first one created and is refused.
          if (deps.config.signup !== 'open') {
            await deps.store.lockTable(trx, 'accounts');
            if (await instanceHasAccounts(trx)) throw signupClosed();
          }
          const user = await createUser(trx, { email, passwordHash, now });
          const account = await createAccount(trx, { name: accountName, plan: 'free', now });
          await addMembership(trx, { accountId: account.id, userId: user.id, role: 'owner', now });
          return { userId: user.id, accountId: account.id };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw emailTaken();
        throw error;
      }
      const session = await startSession(deps, request, reply, created);
      return reply.code(201).send({ success: true, data: await sessionState(deps, session) });
    },
  );
}
