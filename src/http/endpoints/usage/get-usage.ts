import Type from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { planNames } from '../../../domain/plans.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { readQuota, setQuotaHeaders } from '../../quota.ts';
import { errorResponses, StringEnum, Success, Timestamp } from '../../schemas.ts';

const Usage = Type.Object(
  {
    plan: StringEnum(planNames),
    limit: Type.Integer({ description: 'Notifications allowed this month (plan quota or the operator override).' }),
    used: Type.Integer({
      description: 'Notifications and Live Activity starts, updates and ends accepted this month.',
    }),
    remaining: Type.Integer(),
    periodStart: Timestamp,
    resetsAt: Timestamp,
  },
  { title: 'Usage' },
);

export function getUsageEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "This month's use of the plan quota (calendar month, UTC)",
        tags: ['usage'],
        response: { 200: Success(Usage), ...errorResponses(401, 403, 429) },
      },
    },
    async (request, reply) => {
      const quota = await readQuota(deps.store.db, request.auth!.accountId, deps.clock.now());
      setQuotaHeaders(reply, quota);
      return {
        success: true as const,
        data: {
          plan: quota.plan,
          limit: quota.limit,
          used: quota.used,
          remaining: Math.max(0, quota.limit - quota.used),
          periodStart: toIso(quota.periodStart),
          resetsAt: toIso(quota.resetsAt),
        },
      };
    },
  );
}
