import Type, { type Static } from 'typebox';
import { channelDailyEngagement, type DailyEngagement } from '../../../store/channel-engagement-queries.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import type { AppDependencies } from '../../app-types.ts';
import { channelInScope } from '../../channel-scope.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { ChannelCode, errorResponses, Nullable, Success } from '../../schemas.ts';

const DAY_MS = 86_400_000;
/** The window of a channel's view (`engagement`) and the default of GET /channels/{code}/engagement. */
export const ENGAGEMENT_DAYS = 30;
/** The longest window asked for: the receipts' default retention (CLARION_RECEIPT_RETENTION, 90 days). */
const MAX_ENGAGEMENT_DAYS = 90;

const counts = {
  notifications: Type.Integer({ description: 'Notifications sent to the channel (canceled ones left out).' }),
  delivered: Type.Integer({ description: 'Pushes the providers accepted.' }),
  received: Type.Integer({ description: 'Pushes the devices reported received (docs/engagement.md).' }),
  opened: Type.Integer({ description: 'Pushes opened.' }),
};
const openRate = Nullable(
  Type.Number({ description: 'opened / delivered, from 0 to 1; null while nothing was delivered.' }),
);

export const ChannelEngagementSummary = Type.Object(
  { ...counts, openRate },
  {
    description: `The channel's notifications of the last ${ENGAGEMENT_DAYS} UTC days, today included, and what became of their pushes (docs/engagement.md).`,
  },
);

const ChannelEngagement = Type.Object(
  {
    channelCode: Type.String(),
    days: Type.Array(
      Type.Object({ date: Type.String({ description: 'The UTC day, YYYY-MM-DD.' }), ...counts, openRate }),
      { description: 'Every day of the window, oldest first; a day without notifications has zeros.' },
    ),
    totals: Type.Object({ ...counts, openRate }),
  },
  { title: 'ChannelEngagement' },
);

type Counts = Pick<DailyEngagement, 'notifications' | 'delivered' | 'received' | 'opened'>;

function withOpenRate(total: Counts): Counts & { openRate: number | null } {
  return { ...total, openRate: total.delivered === 0 ? null : total.opened / total.delivered };
}

const NO_COUNTS: Counts = { notifications: 0, delivered: 0, received: 0, opened: 0 };
/** The summary of a channel with no notifications in the window. */
export const NO_ENGAGEMENT = withOpenRate(NO_COUNTS);

function sum(days: Counts[]): Counts {
  const total = { notifications: 0, delivered: 0, received: 0, opened: 0 };
  for (const day of days) {
    total.notifications += day.notifications;
    total.delivered += day.delivered;
    total.received += day.received;
    total.opened += day.opened;
  }
  return total;
}

/** The window of `days` UTC days ending with today's: [from, to). */
function windowOf(now: number, days: number): { from: number; to: number } {
  const to = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  return { from: to - days * DAY_MS, to };
}

/** Each listed channel's summary of the last ENGAGEMENT_DAYS days, for the channel view (channel-view.ts). */
export async function channelEngagementSummaries(
  db: Kysely<Database>,
  channelIds: string[],
  now: number,
): Promise<Map<string, Static<typeof ChannelEngagementSummary>>> {
  const daysOf = new Map<string, Counts[]>(channelIds.map((id) => [id, []]));
  for (const row of await channelDailyEngagement(db, { channelIds, ...windowOf(now, ENGAGEMENT_DAYS) }))
    daysOf.get(row.channelId)!.push(row);
  return new Map([...daysOf].map(([id, days]) => [id, withOpenRate(sum(days))]));
}

export function getChannelEngagementEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "A channel's notifications per day and what became of their pushes: delivered, received, opened",
        tags: ['channels'],
        params: Type.Object({ code: ChannelCode }),
        querystring: Type.Object(
          {
            days: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: MAX_ENGAGEMENT_DAYS,
                default: ENGAGEMENT_DAYS,
                description: `How many UTC days, today included (1–${MAX_ENGAGEMENT_DAYS}, default ${ENGAGEMENT_DAYS}).`,
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success(ChannelEngagement), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const { code } = request.params;
      const channel = await channelInScope(deps.store.db, auth, code);
      const days = request.query.days ?? ENGAGEMENT_DAYS;
      const { from, to } = windowOf(deps.clock.now(), days);
      const rows = new Map(
        (await channelDailyEngagement(deps.store.db, { channelIds: [channel.id], from, to })).map((row) => [
          row.dayStart,
          row,
        ]),
      );
      const daily = Array.from({ length: days }, (_, index) => {
        const dayStart = from + index * DAY_MS;
        const { notifications, delivered, received, opened } = rows.get(dayStart) ?? NO_COUNTS;
        return {
          date: new Date(dayStart).toISOString().slice(0, 10),
          ...withOpenRate({ notifications, delivered, received, opened }),
        };
      });
      return {
        success: true as const,
        data: { channelCode: channel.code, days: daily, totals: withOpenRate(sum(daily)) },
      };
    },
  );
}
