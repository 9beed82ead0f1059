import type { Kysely } from 'kysely';
import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import {
  liveActivityPriorities,
  RELEVANCE_MAX,
  RELEVANCE_MIN,
} from '../../../domain/live-activities/live-activity-alert.ts';
import { MAX_LOCALIZATIONS } from '../../../domain/localizations.ts';
import { effectiveStatus } from '../../../domain/live-activities/live-activity-lifecycle.ts';
import { templateNames } from '../../../domain/live-activities/live-activity-templates.ts';
import {
  liveActivityDeliveries,
  liveActivityStatuses,
  type LiveActivityRow,
} from '../../../store/live-activities/live-activities-queries.ts';
import {
  latestLiveActivityEvents,
  type LatestLiveActivityEvent,
} from '../../../store/live-activities/live-activity-delivery-queries.ts';
import type { Database } from '../../../store/schema.ts';
import { parseJson } from '../../../store/store-errors.ts';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../schemas.ts';

const ALERT_TITLE_MAX_LENGTH = 256;
const ALERT_BODY_MAX_LENGTH = 1000;

export const Alert = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: ALERT_TITLE_MAX_LENGTH }),
    body: Type.Optional(Type.String({ maxLength: ALERT_BODY_MAX_LENGTH })),
    sound: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'A sound file in the app bundle, or "default" for the system sound (iOS; Android and web get it in the alert JSON).',
      }),
    ),
    localizations: Type.Optional(
      Type.Record(
        Type.String({ minLength: 1, maxLength: 35 }),
        Type.Object(
          {
            title: Type.String({ minLength: 1, maxLength: ALERT_TITLE_MAX_LENGTH }),
            body: Type.Optional(Type.String({ maxLength: ALERT_BODY_MAX_LENGTH })),
          },
          { additionalProperties: false },
        ),
        {
          maxProperties: MAX_LOCALIZATIONS,
          description:
            "The title and body in other languages, by BCP 47 tag: each device reached per token (iOS per token, Android, web) gets the best match for its subscriber's locale (fr-CA, then fr), else title and body. An APNs broadcast is one payload for every device, so it carries title and body.",
          hint: `must be an object of at most ${MAX_LOCALIZATIONS} language tags, each with a title and an optional body`,
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'Alert shown with the start, an update or the end of the activity.' },
);

export const RelevanceScore = Type.Number({
  minimum: RELEVANCE_MIN,
  maximum: RELEVANCE_MAX,
  description:
    "Orders the app's activities on the Lock Screen and in the Dynamic Island, higher first (iOS `relevance-score`). On an update or end without it, `priority` sets it (`high` 100, `low` 0), else it stays.",
});

export const Priority = StringEnum(liveActivityPriorities, {
  description:
    "`high`: APNs priority 10, delivered at once, counted against the device's Live Activity budget. `low`: priority 5, delivered when the system sees fit, no budget. Without it: 10 for an end or an update with `alert`, 5 for a silent update.",
});

/** What one event reached, in one mode or on one platform: targeted = delivered + failed + skipped + pending. */
const eventCounts = {
  targeted: Type.Integer({ description: 'Devices the event was sent to (or is being sent to).' }),
  delivered: Type.Integer({ description: 'Devices whose push the provider accepted.' }),
  failed: Type.Integer({
    description: 'Devices whose push failed for good: see GET /live-activities/{id}/failures.',
  }),
  skipped: Type.Integer({
    description:
      'Devices sent nothing: they left, or lost their token, after the dispatch, or a newer event made the push pointless.',
  }),
  pending: Type.Integer({ description: 'Devices without an outcome yet.' }),
};
const EventCounts = Type.Object(eventCounts);

const LastEventSchema = Type.Object(
  {
    event: StringEnum(['start', 'update', 'end'] as const),
    at: Timestamp,
    status: StringEnum(['dispatching', 'sending', 'done'] as const, {
      description:
        '`dispatching`: its devices are still being counted; `sending`: some have no outcome yet; `done`: every one has.',
    }),
    ...eventCounts,
    byMode: Type.Partial(
      Type.Object({
        tokens: Type.Object(eventCounts, {
          description:
            'One request per device: iOS per token (every start, including the devices it puts on the broadcast channel), Android and web.',
        }),
        broadcast: Type.Object(
          {
            ...eventCounts,
            failureReason: Nullable(
              Type.String({ description: 'Why the request on the channel failed (e.g. apns:ChannelNotRegistered).' }),
            ),
          },
          {
            description:
              'One request on the APNs channel for every device on it (updates and the end): its outcome counts for each of them.',
          },
        ),
      }),
      { description: 'The counts by delivery mode, for the modes the event used.' },
    ),
    byPlatform: Type.Partial(Type.Object({ ios: EventCounts, android: EventCounts, web: EventCounts }), {
      description: 'The counts per platform, for the platforms the event went to.',
    }),
  },
  {
    description:
      'Delivery of the latest start, update or end (docs/live-activities.md, "Delivery stats"); null for an activity started before Clarion kept them.',
  },
);

export const LiveActivitySchema = Type.Object(
  {
    id: Type.String({ description: 'lva_… identifier.' }),
    channelCode: Type.String(),
    template: StringEnum(templateNames),
    fields: Type.Record(Type.String(), Type.Unknown(), { description: "The template's current fields." }),
    alert: Type.Union([Alert, Type.Null()], {
      description:
        'The alert of the latest start or update that carried one (a start without one gets a default made from the fields).',
    }),
    staleAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When the current content goes stale; given with the start or the latest update.',
    }),
    relevanceScore: Nullable(Type.Number()),
    endAfterSecondsWithoutUpdate: Nullable(
      Type.Integer({ description: 'It ends after this long without an update or end (docs/live-activities.md).' }),
    ),
    endStatus: Nullable(
      Type.String({
        description: 'The status line it ends with then (the `status` field; a `status` activity’s `message`).',
      }),
    ),
    status: StringEnum(liveActivityStatuses, {
      description:
        '`scheduled` until its `sendAt` (nothing is pushed before), then `active`; `ended` after POST /end, or 8 hours after the start, when iOS ends every Live Activity; `canceled` when canceled before it started.',
    }),
    recipientCount: Type.Integer({
      description:
        'Subscribers targeted at start: iOS ones with a push-to-start token for the template, Android and web ones (0 while `scheduled`: counted when it starts).',
    }),
    delivery: StringEnum(liveActivityDeliveries, {
      description: 'The delivery mode asked for at start (`auto` by default).',
    }),
    deliveryModes: Type.Array(StringEnum(['broadcast', 'tokens'] as const), {
      description:
        'The modes in use: `broadcast` when iOS devices were started on an APNs channel, `tokens` when any subscriber is reached per device (iOS per token, Android, web).',
    }),
    channelId: Type.Union([Type.String(), Type.Null()], {
      description:
        'The APNs broadcast channel (base64) once created; an iOS 18 app may also start the activity itself on it (`pushType: .channel(id)`). Null for per-token delivery.',
    }),
    recipientCounts: Type.Object(
      {
        broadcast: Type.Integer({
          description:
            'iOS devices started on the broadcast channel: each update reaches all of them with one APNs request.',
        }),
        tokens: Type.Integer({ description: 'Subscribers reached per device: iOS per token, Android and web.' }),
      },
      { description: 'recipientCount split by delivery mode.' },
    ),
    streamKey: Nullable(
      Type.String({
        description:
          'The stream key it was started with (POST /live-activities/streams/{key}); null when started by id.',
      }),
    ),
    lastEvent: Nullable(LastEventSchema),
    engagement: Type.Object(
      {
        received: Type.Integer({ description: 'Subscribers whose device reported getting one of its pushes.' }),
        opened: Type.Integer({ description: 'Subscribers who opened it (tapped the activity or its notification).' }),
        dismissed: Type.Integer({ description: 'Subscribers who dismissed its notification (Android, web).' }),
        actions: Type.Integer({ description: 'Subscribers who tapped an action of its notification.' }),
      },
      {
        description:
          'What people did with it, from the receipts its pushes with an alert carry (docs/engagement.md, "Live Activities"): unique subscribers over the activity\'s life.',
      },
    ),
    createdAt: Timestamp,
    sendAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When a start accepted with `sendAt` goes (or went) out; null for one started at once.',
    }),
    startedAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When it started: its 8 hours count from here. Null while `scheduled`, and once `canceled`.',
    }),
    updatedAt: Timestamp,
    endedAt: NullableTimestamp,
    dismissAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When the ended activity leaves the Lock Screen, if the end gave a time.',
    }),
  },
  { title: 'LiveActivity' },
);

/** The LiveActivity objects of `rows`, with their latest events read in one query. */
export async function liveActivityViews(
  db: Kysely<Database>,
  rows: readonly LiveActivityRow[],
  now: number,
): Promise<Array<Static<typeof LiveActivitySchema>>> {
  const latest = await latestLiveActivityEvents(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => liveActivityView(row, now, latest.get(row.id)));
}

/** The LiveActivity object of one row (liveActivityViews). */
export async function oneLiveActivityView(
  db: Kysely<Database>,
  row: LiveActivityRow,
  now: number,
): Promise<Static<typeof LiveActivitySchema>> {
  const [view] = await liveActivityViews(db, [row], now);
  return view!;
}

/**
 * The LiveActivity object; `now` decides the 8-hour end even before the expiry job has recorded it; `latest`: its
 * latest event (live-activity-delivery-queries.ts), none for an activity from before events were recorded.
 */
function liveActivityView(
  row: LiveActivityRow,
  now: number,
  latest: LatestLiveActivityEvent | undefined,
): Static<typeof LiveActivitySchema> {
  const { status, endedAt } = effectiveStatus(row, now);
  return {
    id: row.id,
    channelCode: row.channel_code,
    template: row.template as Static<typeof LiveActivitySchema>['template'],
    fields: JSON.parse(row.fields) as Record<string, unknown>,
    alert: parseJson<Static<typeof Alert>>(row.alert),
    staleAt: row.stale_at === null ? null : toIso(row.stale_at),
    relevanceScore: row.relevance_score,
    endAfterSecondsWithoutUpdate: row.auto_end_after_ms === null ? null : row.auto_end_after_ms / 1000,
    endStatus: row.auto_end_status,
    status,
    recipientCount: row.recipient_count,
    delivery: row.delivery,
    deliveryModes: [
      ...(row.broadcast_count > 0 || row.apns_channel_id !== null ? (['broadcast'] as const) : []),
      ...(row.recipient_count > row.broadcast_count ? (['tokens'] as const) : []),
    ],
    channelId: row.apns_channel_id,
    recipientCounts: { broadcast: row.broadcast_count, tokens: row.recipient_count - row.broadcast_count },
    streamKey: row.stream_key,
    lastEvent: latest ? lastEventView(latest) : null,
    engagement: {
      received: row.received_count,
      opened: row.opened_count,
      dismissed: row.dismissed_count,
      actions: row.actions_count,
    },
    createdAt: toIso(row.created_at),
    sendAt: row.send_at === null ? null : toIso(row.send_at),
    startedAt: row.started_at === null ? null : toIso(row.started_at),
    updatedAt: toIso(row.updated_at),
    endedAt: endedAt === null ? null : toIso(endedAt),
    dismissAt: row.dismiss_at === null ? null : toIso(row.dismiss_at),
  };
}

type Counts = Static<typeof EventCounts>;

function lastEventView(latest: LatestLiveActivityEvent): Static<typeof LastEventSchema> {
  const sum = (counters: LatestLiveActivityEvent['counters']): Counts => {
    const total = { targeted: 0, delivered: 0, failed: 0, skipped: 0 };
    for (const counter of counters)
      for (const key of ['targeted', 'delivered', 'failed', 'skipped'] as const) total[key] += counter[key];
    return { ...total, pending: Math.max(0, total.targeted - total.delivered - total.failed - total.skipped) };
  };
  const total = sum(latest.counters);
  const byMode: Static<typeof LastEventSchema>['byMode'] = {};
  const tokens = latest.counters.filter((counter) => counter.mode === 'tokens');
  if (tokens.length > 0) byMode.tokens = sum(tokens);
  const broadcast = latest.counters.find((counter) => counter.mode === 'broadcast');
  if (broadcast) byMode.broadcast = { ...sum([broadcast]), failureReason: broadcast.failure_reason };
  const byPlatform: Static<typeof LastEventSchema>['byPlatform'] = {};
  for (const platform of new Set(latest.counters.map((counter) => counter.platform)))
    byPlatform[platform] = sum(latest.counters.filter((counter) => counter.platform === platform));
  return {
    event: latest.event,
    at: toIso(latest.timestamp),
    status: latest.dispatchedAt === null ? 'dispatching' : total.pending > 0 ? 'sending' : 'done',
    ...total,
    byMode,
    byPlatform,
  };
}
