import Type from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { usagePeriod } from '../../../domain/plans.ts';
import { dailySends } from '../../../store/daily-sends-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, Success, Timestamp } from '../../schemas.ts';

const DAY_MS = 86_400_000;

const DailyUsage = Type.Object(
  {
    periodStart: Timestamp,
    resetsAt: Timestamp,
    days: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date', description: 'UTC day, YYYY-MM-DD.' }),
        notifications: Type.Integer({
          description: 'Notifications accepted that day (sent or scheduled; canceled ones left out).',
        }),
      }),
      { description: 'Every day of this month up to today, oldest first, days without sends included as 0.' },
    ),
  },
  { title: 'DailyUsage' },
);

export function getDailyUsageEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Notifications accepted per day this month (UTC), for the usage chart',
        description:
          'Counts notifications by their creation day. The quota (GET /api/v1/usage) also counts Live Activity starts, updates and ends.',
        tags: ['usage'],
        response: { 200: Success(DailyUsage), ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => {
      const now = deps.clock.now();
      const period = usagePeriod(now);
      const counts = new Map(
        (
          await dailySends(deps.store.db, {
            accountId: request.auth!.accountId,
            from: period.start,
            to: period.resetsAt,
          })
        ).map((row) => [row.dayStart, row.count]),
      );
      const days = [];
      for (let day = period.start; day <= now; day += DAY_MS) {
        days.push({ date: toIso(day).slice(0, 10), notifications: counts.get(day) ?? 0 });
      }
      return {
        success: true as const,
        data: { periodStart: toIso(period.start), resetsAt: toIso(period.resetsAt), days },
      };
    },
  );
}
