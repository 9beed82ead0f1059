import type { FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import { toIso } from '../domain/clock.ts';
import { isPlan, monthlyLimit, usagePeriod, type Plan } from '../domain/plans.ts';
import { findAccount, type Account } from '../store/accounts-queries.ts';
import type { Database } from '../store/schema.ts';
import { takeQuota, usedInPeriod } from '../store/usage-queries.ts';
import { ApiError } from './api-error.ts';

export interface QuotaState {
  plan: Plan;
  limit: number;
  used: number;
  periodStart: number;
  resetsAt: number;
}

function planOf(account: Pick<Account, 'plan'>): Plan {
  return isPlan(account.plan) ? account.plan : 'free';
}

/**
 * Charges one unit of the account's monthly quota inside `trx`, or throws 429 quota_exceeded (docs/design.md 2.7).
 * Whatever the caller stores in the same transaction is rolled back with the charge if anything later fails.
 */
export async function chargeQuota(trx: Kysely<Database>, accountId: string, now: number): Promise<QuotaState> {
  const terms = quotaTerms(await findAccount(trx, accountId), now);
  return terms.state(await chargeOnTerms(trx, accountId, terms));
}

/** One unit charged on terms already known (admission read the account), or 429; returns the count used after. */
export async function chargeOnTerms(trx: Kysely<Database>, accountId: string, terms: QuotaTerms): Promise<number> {
  const result = await takeQuota(trx, { accountId, period: terms.period, limit: terms.limit });
  if (!result.taken) throw quotaExceeded(terms, result.used);
  return result.used;
}

/** What a charge of the account's quota is against: the plan's limit and this month's period. */
export interface QuotaTerms {
  plan: Plan;
  limit: number;
  /** The usage counter's key, e.g. "2026-11". */
  period: string;
  state(used: number): QuotaState;
}

/** The terms for charging `account` now (a missing account: 401). For a caller that charges in a statement of its own. */
export function quotaTerms(account: Pick<Account, 'plan' | 'monthly_limit'> | undefined, now: number): QuotaTerms {
  if (!account) throw new ApiError('unauthorized');
  const plan = planOf(account);
  const limit = monthlyLimit(plan, account.monthly_limit);
  const period = usagePeriod(now);
  return {
    plan,
    limit,
    period: period.key,
    state: (used) => ({ plan, limit, used, periodStart: period.start, resetsAt: period.resetsAt }),
  };
}

/** The 429 for a charge refused with `used` units already taken this period. */
export function quotaExceeded(terms: QuotaTerms, used: number): ApiError {
  const state = terms.state(used);
  return new ApiError('quota_exceeded', {
    message: `This month's quota of ${terms.limit} notifications on the ${terms.plan} plan is used up; it resets at ${toIso(state.resetsAt)}.`,
    details: { plan: terms.plan, limit: terms.limit, used, resetsAt: toIso(state.resetsAt) },
    headers: quotaHeaders(state),
  });
}

export async function readQuota(db: Kysely<Database>, accountId: string, now: number): Promise<QuotaState> {
  const account = await findAccount(db, accountId);
  if (!account) throw new ApiError('unauthorized');
  const plan = planOf(account);
  const period = usagePeriod(now);
  return {
    plan,
    limit: monthlyLimit(plan, account.monthly_limit),
    used: await usedInPeriod(db, accountId, period.key),
    periodStart: period.start,
    resetsAt: period.resetsAt,
  };
}

export function quotaHeaders(state: QuotaState): Record<string, string> {
  return { 'x-quota-limit': String(state.limit), 'x-quota-remaining': String(Math.max(0, state.limit - state.used)) };
}

export function setQuotaHeaders(reply: FastifyReply, state: QuotaState): void {
  reply.headers(quotaHeaders(state));
}
