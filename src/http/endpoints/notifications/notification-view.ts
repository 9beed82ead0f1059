import Type, { type Static } from 'typebox';
import { summarizeAudience } from '../../../domain/audience.ts';
import { toIso } from '../../../domain/clock.ts';
import { plannedFinishAt } from '../../../domain/throttle.ts';
import { contentFromColumns, contentViewProperties } from '../../../domain/notification-content.ts';
import { notificationStatuses, type NotificationRow } from '../../../store/notifications-queries.ts';
import type { PlatformCounts } from '../../../store/receipts-queries.ts';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../schemas.ts';

/** One platform's counters in `stats.byPlatform`. */
const PlatformCountsSchema = Type.Object({
  delivered: Type.Integer(),
  failed: Type.Integer(),
  received: Type.Integer(),
  opened: Type.Integer(),
  dismissed: Type.Integer(),
  actions: Type.Integer(),
});

/** The Notification object (docs/design.md 2.4; the five fields of the original interface are pinned). */
export const Notification = Type.Object(
  {
    id: Type.String({ description: 'ntf_… identifier.' }),
    channelCode: Type.String(),
    ...contentViewProperties,
    status: StringEnum(notificationStatuses),
    sendAt: NullableTimestamp,
    deliverAtLocalTime: Nullable(Type.String({ description: '"HH:MM" local delivery time, when given.' })),
    canceledAt: NullableTimestamp,
    expectedFinishAt: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'A throttled send: when its fan-out is planned to finish, its due time plus recipientCount at throttlePerMinute. Null without a throttle, and for local-time delivery (each zone is paced on its own).',
      }),
    ),
    failureReason: Nullable(
      Type.String({
        description:
          'Why the whole notification failed: "expired" (its ttlSeconds passed before it could be sent), else the reason most of its pushes failed with (e.g. "token_unregistered", "provider_configuration:BadDeviceToken").',
      }),
    ),
    recipientCount: Type.Integer({
      description:
        'Active subscribers of the channel (or of its audience) targeted when the notification was accepted.',
    }),
    audience: Nullable(
      Type.Union(
        [
          Type.Object({
            type: StringEnum(['externalIds', 'subscriberIds'] as const),
            count: Type.Integer({ description: 'How many ids the send named.' }),
          }),
          Type.Object({ type: Type.Literal('tags'), all: Type.Array(Type.String()), any: Type.Array(Type.String()) }),
        ],
        { description: 'Whom in the channel it targets; null for every subscriber.' },
      ),
    ),
    stats: Type.Object(
      {
        delivered: Type.Integer({ description: 'Pushes the platform accepted.' }),
        failed: Type.Integer({
          description: 'Subscribers whose push failed for good; see GET /notifications/{id}/failures.',
        }),
        skipped: Type.Integer({
          description:
            'Recipients sent nothing on purpose: they unsubscribed or were removed between acceptance and sending, or a rule left them out (frequency_capped, silent_not_supported; listed by GET /notifications/{id}/failures).',
        }),
        pending: Type.Integer({ description: 'Recipients without an outcome yet.' }),
        held: Type.Integer({
          description:
            'Of pending: recipients whose push waits for the end of their quiet hours (docs/api.md, "Quiet hours").',
        }),
        received: Type.Integer({
          description:
            'Subscribers whose device reported getting the push, or opened, dismissed or acted on it (docs/engagement.md).',
        }),
        opened: Type.Integer({ description: 'Subscribers who opened it (tapped or clicked it).' }),
        dismissed: Type.Integer({ description: 'Subscribers who dismissed it.' }),
        actions: Type.Integer({ description: 'Subscribers who tapped one of its action buttons.' }),
        byPlatform: Type.Partial(
          Type.Object({ ios: PlatformCountsSchema, android: PlatformCountsSchema, web: PlatformCountsSchema }),
          { description: 'Deliveries and the counts above per platform, for the platforms it was sent to.' },
        ),
      },
      { description: 'Delivery progress: recipientCount = delivered + failed + skipped + pending, always.' },
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Notification' },
);

/**
 * `platforms`: the notification's per-platform counters (store/receipts-queries.ts platformCountsOf); none for one
 * not yet dispatched.
 */
export function notificationView(
  row: NotificationRow,
  platforms: readonly PlatformCounts[] = [],
): Static<typeof Notification> {
  const sum = (counter: 'received' | 'opened' | 'dismissed' | 'actions') =>
    platforms.reduce((total, counts) => total + counts[counter], 0);
  return {
    id: row.id,
    channelCode: row.channel_code,
    ...contentFromColumns(row),
    status: row.status,
    sendAt: row.send_at === null ? null : toIso(row.send_at),
    deliverAtLocalTime: row.deliver_at_local_time,
    canceledAt: row.canceled_at === null ? null : toIso(row.canceled_at),
    expectedFinishAt:
      row.throttle_per_minute === null || row.deliver_at_local_time !== null
        ? null
        : toIso(plannedFinishAt(row.send_at ?? row.created_at, row.recipient_count, row.throttle_per_minute)),
    failureReason: row.failure_reason,
    recipientCount: row.recipient_count,
    audience: summarizeAudience(row.audience),
    stats: {
      delivered: row.delivered_count,
      failed: row.failed_count,
      skipped: row.skipped_count,
      // The dispatch moves recipients it no longer finds into skipped (deliveries-queries.ts fixTargetedCount), so this
      // adds up; the floor only guards a canceled local-time notification whose later zones were never dispatched.
      pending: Math.max(0, row.recipient_count - row.delivered_count - row.failed_count - row.skipped_count),
      held: row.held_count,
      received: sum('received'),
      opened: sum('opened'),
      dismissed: sum('dismissed'),
      actions: sum('actions'),
      byPlatform: Object.fromEntries(platforms.map(({ platform, ...counts }) => [platform, counts])),
    },
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}
