import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { liveActivityPriorities } from '../../../domain/live-activities/live-activity-alert.ts';
import { MAX_LOCALIZATIONS } from '../../../domain/localizations.ts';
import { effectiveStatus } from '../../../domain/live-activities/live-activity-lifecycle.ts';
import { templateNames } from '../../../domain/live-activities/live-activity-templates.ts';
import {
  liveActivityDeliveries,
  liveActivityStatuses,
  type LiveActivityRow,
} from '../../../store/live-activities/live-activities-queries.ts';
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

export const Priority = StringEnum(liveActivityPriorities, {
  description:
    "`high`: APNs priority 10, delivered at once, counted against the device's Live Activity budget. `low`: priority 5, delivered when the system sees fit, no budget. Without it: 10 for an end or an update with `alert`, 5 for a silent update.",
});

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
    status: StringEnum(liveActivityStatuses, {
      description: '`ended` after POST /end, or 8 hours after the start, when iOS ends every Live Activity.',
    }),
    recipientCount: Type.Integer({
      description:
        'Subscribers targeted at start: iOS ones with a push-to-start token for the template, Android and web ones.',
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
    createdAt: Timestamp,
    updatedAt: Timestamp,
    endedAt: NullableTimestamp,
    dismissAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When the ended activity leaves the Lock Screen, if the end gave a time.',
    }),
  },
  { title: 'LiveActivity' },
);

/** The LiveActivity object; `now` decides the 8-hour end even before the expiry job has recorded it. */
export function liveActivityView(row: LiveActivityRow, now: number): Static<typeof LiveActivitySchema> {
  const { status, endedAt } = effectiveStatus(row, now);
  return {
    id: row.id,
    channelCode: row.channel_code,
    template: row.template as Static<typeof LiveActivitySchema>['template'],
    fields: JSON.parse(row.fields) as Record<string, unknown>,
    alert: parseJson<Static<typeof Alert>>(row.alert),
    staleAt: row.stale_at === null ? null : toIso(row.stale_at),
    relevanceScore: row.relevance_score,
    status,
    recipientCount: row.recipient_count,
    delivery: row.delivery,
    deliveryModes: [
      ...(row.broadcast_count > 0 || row.apns_channel_id !== null ? (['broadcast'] as const) : []),
      ...(row.recipient_count > row.broadcast_count ? (['tokens'] as const) : []),
    ],
    channelId: row.apns_channel_id,
    recipientCounts: { broadcast: row.broadcast_count, tokens: row.recipient_count - row.broadcast_count },
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    endedAt: endedAt === null ? null : toIso(endedAt),
    dismissAt: row.dismiss_at === null ? null : toIso(row.dismiss_at),
  };
}
