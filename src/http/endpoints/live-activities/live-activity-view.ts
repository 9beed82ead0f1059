import Type, { type Static } from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { templateNames } from '../../../domain/live-activity-templates.ts';
import type { LiveActivityRow } from '../../../store/live-activities-store.ts';
import { parseJson } from '../../../store/store-errors.ts';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../schemas.ts';

export const Alert = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 256 }),
    body: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false, description: 'Alert shown with the start (or an update) of the activity.' },
);

export const LiveActivitySchema = Type.Object(
  {
    id: Type.String({ description: 'lva_… identifier.' }),
    channelCode: Type.String(),
    template: StringEnum(templateNames),
    fields: Type.Record(Type.String(), Type.Unknown(), { description: "The template's current fields." }),
    alert: Nullable(Alert),
    staleAt: NullableTimestamp,
    relevanceScore: Nullable(Type.Number()),
    status: StringEnum(['active', 'ended'] as const),
    recipientCount: Type.Integer({ description: 'Subscribers targeted at start: iOS ones with a push-to-start token, Android and web ones.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    endedAt: NullableTimestamp,
  },
  { title: 'LiveActivity' },
);

export function liveActivityView(row: LiveActivityRow): Static<typeof LiveActivitySchema> {
  return {
    id: row.id,
    channelCode: row.channel_code,
    template: row.template as Static<typeof LiveActivitySchema>['template'],
    fields: JSON.parse(row.fields) as Record<string, unknown>,
    alert: parseJson<Static<typeof Alert>>(row.alert),
    staleAt: row.stale_at === null ? null : toIso(row.stale_at),
    relevanceScore: row.relevance_score,
    status: row.status,
    recipientCount: row.recipient_count,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    endedAt: row.ended_at === null ? null : toIso(row.ended_at),
  };
}
