import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { frequencyCapOf } from '../../../domain/frequency-cap.ts';
import { quietHoursOf } from '../../../domain/quiet-hours.ts';
import { countActiveSubscribers, type Channel, type SubscriberCounts } from '../../../store/channels-queries.ts';
import type { AppDependencies } from '../../app-types.ts';
import { Nullable, Timestamp } from '../../schemas.ts';
import { joinPageUrl } from '../join/join-page-url.ts';
import { channelEngagementSummaries, ChannelEngagementSummary, NO_ENGAGEMENT } from './channel-engagement.ts';
import { joinPageBase } from './channel-join-key.ts';

const FrequencyCapView = Type.Object(
  { count: Type.Integer(), periodSeconds: Type.Integer() },
  {
    description:
      'At most `count` notifications of the channel per subscriber in any rolling `periodSeconds`; null: no cap (docs/api.md, "Frequency caps").',
  },
);

export const ChannelSchema = Type.Object(
  {
    id: Type.String({ description: 'chn_… identifier.' }),
    code: Type.String({ description: 'The code requests use to name the channel; unique in the account.' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    subscriberCount: Type.Object(
      { total: Type.Integer(), ios: Type.Integer(), android: Type.Integer(), web: Type.Integer() },
      { description: 'Active subscribers, in all and per platform.' },
    ),
    joinPage: Type.Boolean({
      description: 'Whether the public join page is on (off by default; docs/web-push.md, "Join page").',
    }),
    joinUrl: Nullable(
      Type.String({ description: 'The join page: <base URL>/join/<account slug>/<code>; null while it is off.' }),
    ),
    appId: Nullable(
      Type.String({
        description:
          "The app whose credentials deliver this channel's pushes; null: the instance's built-in app (docs/apps.md).",
      }),
    ),
    frequencyCap: Nullable(FrequencyCapView),
    quietHours: Nullable(
      Type.Object(
        { start: Type.String(), end: Type.String() },
        {
          description:
            'From `start` to `end` ("HH:MM") in each subscriber\'s time zone, pushes wait; null: none (docs/api.md, "Quiet hours").',
        },
      ),
    ),
    engagement: ChannelEngagementSummary,
    createdAt: Timestamp,
  },
  { title: 'Channel' },
);

/** Where a channel's join page would be: the instance's base URL and the channel's account slug. */
export interface JoinPageBase {
  baseUrl: string;
  accountSlug: string;
}

export function channelView(
  channel: Channel,
  counts: SubscriberCounts | undefined,
  join: JoinPageBase,
  engagement: Static<typeof ChannelEngagementSummary> = NO_ENGAGEMENT,
): Static<typeof ChannelSchema> {
  const { total, ios, android, web } = counts ?? { total: 0, ios: 0, android: 0, web: 0 };
  const joinPage = channel.join_key_id !== null;
  return {
    id: channel.id,
    code: channel.code,
    name: channel.name,
    description: channel.description,
    subscriberCount: { total, ios, android, web },
    joinPage,
    joinUrl: joinPage ? joinPageUrl(join.baseUrl, join.accountSlug, channel.code) : null,
    appId: channel.app_id,
    frequencyCap: frequencyCapOf(channel),
    quietHours: quietHoursOf(channel),
    engagement,
    createdAt: toIso(channel.created_at),
  };
}

/** One channel of the account as GET /channels/{code} and its update show it: with its counts and engagement. */
export async function oneChannelView(
  deps: AppDependencies,
  accountId: string,
  channel: Channel,
): Promise<Static<typeof ChannelSchema>> {
  const [counts, engagement, join] = await Promise.all([
    countActiveSubscribers(deps.store.db, [channel.id]),
    channelEngagementSummaries(deps.store.db, [channel.id], deps.clock.now()),
    joinPageBase(deps, accountId),
  ]);
  return channelView(channel, counts.get(channel.id), join, engagement.get(channel.id));
}
