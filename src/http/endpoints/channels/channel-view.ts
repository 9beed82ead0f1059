import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import type { Channel, SubscriberCounts } from '../../../store/channels-store.ts';
import { Nullable, Timestamp } from '../../schemas.ts';

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
    createdAt: Timestamp,
  },
  { title: 'Channel' },
);

export function channelView(channel: Channel, counts: SubscriberCounts | undefined): Static<typeof ChannelSchema> {
  const { total, ios, android, web } = counts ?? { total: 0, ios: 0, android: 0, web: 0 };
  return {
    id: channel.id,
    code: channel.code,
    name: channel.name,
    description: channel.description,
    subscriberCount: { total, ios, android, web },
    createdAt: toIso(channel.created_at),
  };
}
