import type { Kysely } from 'kysely';
import { isEmailAddress } from '../domain/email-address.ts';
import { hashPassword, passwordProblem } from '../domain/passwords.ts';
import type { Database } from '../store/schema.ts';
import { createUser, findUserByEmail } from '../store/users-queries.ts';
import { CliError } from './cli-output.ts';

/** The flags a command names the owner with (`accounts create`: --owner-email; `accounts add-owner`: --email). */
export interface OwnerFlags {
  email: string;
  password: string;
}

/** The email's form, checked before anything is opened. */
export function checkOwnerEmail(email: string, flags: OwnerFlags): void {
  if (!isEmailAddress(email))
    throw new CliError(`${flags.email} is not an email address, like ada@example.com`, 'validation_failed');
}

/**
 * The user who is to own an account, inside the caller's transaction: the existing user with that email, or a new
 * one with the password given. A password for an existing user is refused rather than ignored or applied: it would
 * not be theirs to change from here (they may own other accounts), and ignoring it would leave the operator believing
 * it works.
 */
export async function ownerUser(
  trx: Kysely<Database>,
  input: { email: string; password: string | undefined; now: number; flags: OwnerFlags },
): Promise<{ user: { id: string; email: string }; created: boolean }> {
  const { email, password, flags } = input;
  const existing = await findUserByEmail(trx, email);
  if (existing) {
    if (password !== undefined) {
      throw new CliError(
        `a user with email ${existing.email} already exists and keeps their own password: leave out ${flags.password} to make them an owner`,
        'conflict',
      );
    }
    return { user: { id: existing.id, email: existing.email }, created: false };
  }
  if (password === undefined)
    throw new CliError(
      `${flags.password} is required for a new user (no user has the email ${email})`,
      'validation_failed',
    );
  const problem = passwordProblem(password);
  if (problem) throw new CliError(`${flags.password}: ${problem}`, 'validation_failed');
  const user = await createUser(trx, { email, passwordHash: await hashPassword(password), now: input.now });
  return { user: { id: user.id, email: user.email }, created: true };
}
