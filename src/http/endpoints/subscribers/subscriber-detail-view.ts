import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import type { LastFailure } from '../../../store/subscriber-directory-queries.ts';
import type { Subscriber } from '../../../store/subscribers-queries.ts';
import { Nullable, NullableTimestamp, Timestamp } from '../../schemas.ts';
import { SubscriberSchema, subscriberView } from './subscriber-view.ts';

/** Characters of a device token the API shows: enough to tell devices apart in a list, far too few to push to one. */
const TOKEN_PREFIX_LENGTH = 8;

/** A failed push to one subscriber (delivery_failures). */
const FailureFields = { notificationId: Type.String(), reason: Type.String(), at: Timestamp };

/** A subscriber as the account reads it (GET /subscribers, GET /users/{externalId}): its details, never its token. */
export const SubscriberDetailSchema = Type.Object(
  {
    ...SubscriberSchema.properties,
    externalId: Nullable(
      Type.String({ description: 'Your id for the person; ties their devices together (GET /users/{externalId}).' }),
    ),
    tags: Type.Array(Type.String(), { description: 'Labels sends can target (`tags` on POST /notifications).' }),
    timezone: Nullable(Type.String()),
    locale: Nullable(Type.String()),
    tokenPrefix: Type.String({
      description:
        'The first characters of the device token (iOS, Android) or the push service origin (web): never the token itself.',
    }),
    updatedAt: Timestamp,
    lastDeliveredAt: NullableTimestamp,
    lastFailure: Nullable(
      Type.Object(FailureFields, { description: 'The most recent push to this subscriber that failed.' }),
    ),
  },
  { title: 'SubscriberDetail' },
);

/** How many failed pushes GET /subscribers/{id} lists (one indexed read); older ones are in GET /notifications/{id}/failures. */
export const RECENT_FAILURES_SHOWN = 10;

/** One subscriber as GET /subscribers/{id} shows it: also its latest failed pushes. */
export const SubscriberWithFailuresSchema = Type.Object(
  {
    ...SubscriberDetailSchema.properties,
    recentFailures: Type.Array(Type.Object(FailureFields), {
      maxItems: RECENT_FAILURES_SHOWN,
      description: `Its latest failed pushes, newest first (at most ${RECENT_FAILURES_SHOWN}); the first is \`lastFailure\`.`,
    }),
  },
  { title: 'SubscriberWithFailures' },
);

export function subscriberDetailView(
  subscriber: Subscriber,
  channelCode: string,
  extra: { tags: string[]; widgetPushEnabled: boolean; lastFailure?: LastFailure | null },
): Static<typeof SubscriberDetailSchema> {
  return {
    ...subscriberView(subscriber, channelCode, extra.widgetPushEnabled),
    externalId: subscriber.external_id,
    tags: extra.tags,
    timezone: subscriber.timezone,
    locale: subscriber.locale,
    tokenPrefix: tokenPrefix(subscriber),
    updatedAt: toIso(subscriber.updated_at),
    lastDeliveredAt: subscriber.last_delivered_at === null ? null : toIso(subscriber.last_delivered_at),
    lastFailure: extra.lastFailure ? failureView(extra.lastFailure) : null,
  };
}

export function failureView(failure: LastFailure): Static<typeof SubscriberDetailSchema>['lastFailure'] & object {
  return { notificationId: failure.notificationId, reason: failure.reason, at: toIso(failure.at) };
}

/** A Web Push endpoint's path is the capability to push, so only its origin is shown. */
function tokenPrefix(subscriber: Pick<Subscriber, 'platform' | 'token'>): string {
  if (subscriber.platform === 'web') {
    try {
      return `${new URL((JSON.parse(subscriber.token) as { endpoint: string }).endpoint).origin}/…`;
    } catch {
      return '…';
    }
  }
  return `${subscriber.token.slice(0, TOKEN_PREFIX_LENGTH)}…`;
}
