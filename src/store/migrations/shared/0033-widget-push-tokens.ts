import type { SqlTypes } from '../../migrate.ts';

/**
 * WidgetKit pushes (iOS 26, docs/live-activities.md "Widgets"): the widget push token an iOS device reported
 * (`widgetPushToken` on POST /subscribers, PATCH /subscribers/{id}), one per subscriber, kept as the lower-case hex
 * push-to-start tokens are kept in. `channel_id` is the subscriber's (a subscriber never changes channel), so the
 * reload's dispatch pages a channel's widget tokens on one index without reading its other subscribers.
 */
export const statements = (types: SqlTypes): string[] => [
  `CREATE TABLE widget_push_tokens (
    subscriber_id TEXT PRIMARY KEY REFERENCES subscribers(id),
    channel_id TEXT NOT NULL,
    token TEXT NOT NULL,
    created_at ${types.timestamp} NOT NULL,
    updated_at ${types.timestamp} NOT NULL
  )${types.strict}`,
  `CREATE INDEX widget_push_tokens_channel ON widget_push_tokens (channel_id, subscriber_id)`,
];
