/** Monthly notification quotas per plan (docs/design.md 2.7, pinned). */
export const planQuotas = {
  free: 250,
  starter: 2_500,
  pro: 10_000,
  business: 50_000,
} as const;

export type Plan = keyof typeof planQuotas;
export const planNames = Object.keys(planQuotas) as Plan[];

export function isPlan(value: string): value is Plan {
  return Object.hasOwn(planQuotas, value);
}

/** The account's monthly limit: the operator's override when set, else the plan's quota. */
export function monthlyLimit(plan: Plan, limitOverride: number | null): number {
  return limitOverride ?? planQuotas[plan];
}

export interface UsagePeriod {
  /** "YYYY-MM" in UTC: the key of the usage counter. */
  key: string;
  start: number;
  /** First millisecond of the next month (UTC): when the counter resets. */
  resetsAt: number;
}

/** Quotas run per calendar month in UTC. */
export function usagePeriod(now: number): UsagePeriod {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return {
    key: `${year}-${String(month + 1).padStart(2, '0')}`,
    start: Date.UTC(year, month, 1),
    resetsAt: Date.UTC(year, month + 1, 1),
  };
}
