import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { apnsEnvironments } from '../../../domain/apns-environment.ts';
import { platforms } from '../../../domain/device-token.ts';
import type { Subscriber } from '../../../store/subscribers-queries.ts';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../schemas.ts';

/** What the API shows of a subscriber: never its token. */
export const SubscriberSchema = Type.Object(
  {
    id: Type.String({
      description: 'sub_… identifier; the app keeps it to unsubscribe and to report Live Activity tokens.',
    }),
    channelCode: Type.String(),
    platform: StringEnum(platforms),
    status: StringEnum(['active', 'unsubscribed'] as const),
    unsubscribeReason: Nullable(Type.String()),
    createdAt: Timestamp,
    unsubscribedAt: NullableTimestamp,
    environment: Type.Union([StringEnum(apnsEnvironments), Type.Null()], {
      description:
        'iOS: the APNs environment of the token (given at registration or learned on the first push); null when not known yet, and for other platforms.',
    }),
    widgetPushEnabled: Type.Boolean({
      description:
        'iOS 26: whether the device reported a WidgetKit widget push token (`widgetPushToken`), so POST /widgets/reload reaches it. Never the token itself.',
    }),
  },
  { title: 'Subscriber' },
);

export function subscriberView(
  subscriber: Subscriber,
  channelCode: string,
  widgetPushEnabled: boolean,
): Static<typeof SubscriberSchema> {
  return {
    id: subscriber.id,
    channelCode,
    platform: subscriber.platform,
    status: subscriber.status,
    unsubscribeReason: subscriber.unsubscribe_reason,
    createdAt: toIso(subscriber.created_at),
    unsubscribedAt: subscriber.unsubscribed_at === null ? null : toIso(subscriber.unsubscribed_at),
    environment: subscriber.apns_environment ?? null,
    widgetPushEnabled,
  };
}
