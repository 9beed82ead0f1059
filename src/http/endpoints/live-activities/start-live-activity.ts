import type { FastifyReply } from 'fastify';
import Type, { type Static } from 'typebox';
import {
  enqueueLiveActivityPush,
  scheduleAutoEnd,
  scheduleLiveActivityExpiry,
} from '../../../delivery/live-activities/live-activity-jobs.ts';
import { liveActivityPushOf } from '../../../delivery/live-activities/live-activity-snapshot.ts';
import { newId } from '../../../domain/ids.ts';
import {
  alertProblems,
  canonicalAlert,
  defaultStartAlert,
} from '../../../domain/live-activities/live-activity-alert.ts';
import { liveActivityExpiresAt, nextPushTimestamp } from '../../../domain/live-activities/live-activity-lifecycle.ts';
import {
  templateNames,
  templateSchemas,
  validateTemplateFields,
} from '../../../domain/live-activities/live-activity-templates.ts';
import { recordEvent } from '../../../store/events-queries.ts';
import type { Kysely } from 'kysely';
import { supportsBroadcast } from '../../../domain/ios-version.ts';
import {
  insertLiveActivity,
  liveActivityDeliveries,
  type LiveActivityRow,
} from '../../../store/live-activities/live-activities-queries.ts';
import { countIosStartTargetsByOsVersion } from '../../../store/live-activities/live-activity-targets-queries.ts';
import type { Database } from '../../../store/schema.ts';
import { countLiveActivityTargets } from '../../../store/subscribers-queries.ts';
import { audienceProperties, takeAudience } from '../notifications/notification-audience.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { admitSend, sendEndpoint } from '../../admission.ts';
import type { Endpoint } from '../../endpoint.ts';
import { chargeOnTerms } from '../../quota.ts';
import { ChannelCode, errorResponses, StringEnum, Success } from '../../schemas.ts';
import { assertLiveActivityPayloadsFit } from './live-activity-payload-size.ts';
import { endStatusProblems, readTiming, timingProperties } from './live-activity-timing.ts';
import { Alert, oneLiveActivityView, LiveActivitySchema, RelevanceScore } from './live-activity-view.ts';

const templateList = templateNames.map((name) => `\`${name}\``).join(', ');
const templateComponentList = templateNames
  .map((name) => String((templateSchemas[name] as { title?: string }).title))
  .join(', ');

/** The iOS devices the start puts on the broadcast channel: all of them (`broadcast`), iOS 18+ ones (`auto`), none (`tokens`). */
async function countBroadcastPart(db: Kysely<Database>, activity: LiveActivityRow): Promise<number> {
  if (activity.delivery === 'tokens') return 0;
  const versions = await countIosStartTargetsByOsVersion(db, {
    channelId: activity.channel_id,
    template: activity.template,
    audience: activity.audience,
  });
  return versions
    .filter(({ osVersion }) => activity.delivery === 'broadcast' || supportsBroadcast(osVersion))
    .reduce((sum, { count }) => sum + count, 0);
}

/** The body of a start: POST /live-activities, and the first call of a stream (stream-live-activity.ts). */
export const StartBody = Type.Object(
  {
    channelCode: ChannelCode,
    template: StringEnum(templateNames, { description: 'Template name.' }),
    fields: Type.Object(
      {},
      { additionalProperties: true, description: 'Values for the template: see the <Template>Fields schemas.' },
    ),
    alert: Type.Optional(Alert),
    staleAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When the system should show the activity as out of date.',
      }),
    ),
    ...timingProperties,
    relevanceScore: Type.Optional(RelevanceScore),
    // Optional audience inside the channel, as on POST /notifications (docs/api.md, "Targeting").
    ...audienceProperties,
    delivery: Type.Optional(
      StringEnum(liveActivityDeliveries, {
        description:
          'How iOS devices get updates. `auto` (default): an APNs broadcast channel (ONE request per update) for devices that reported iOS 18 or later (`osVersion`), per-token pushes for the rest. `broadcast`: every iOS device on the channel. `tokens`: every device per token, as before iOS 18. Android and web are always per device.',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * POST /api/v1/live-activities. Admitted like a notification (src/http/admission.ts: the key's standing, scope,
 * channel, app, payload fit, quota); in admission's ONE transaction: the quota unit, the activity,
 * `live_activity.started`, the dispatch job of its `start` push (push-to-start on iOS, a data message on Android;
 * src/delivery/live-activities/) and the job that ends it after 8 hours. A 201 means all of them exist; a 429 means
 * none does.
 */
export function startLiveActivityEndpoint(deps: AppDependencies): Endpoint {
  return sendEndpoint(
    {
      schema: {
        summary: 'Start a Live Activity on every subscriber of a channel',
        description: `Templates: ${templateList}. The members of \`fields\` per template are the ${templateComponentList} schemas. iOS subscribers with a push-to-start token get it by push-to-start, Android subscribers as a data message, web subscribers as a notification replaced in place (docs/live-activities.md). \`alert\` defaults to the title and a summary of the fields. Counts one against the monthly quota.`,
        tags: ['live activities'],
        body: StartBody,
        response: { 201: Success(LiveActivitySchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const row = await startLiveActivity(deps, request.auth!, reply, request.body, null);
      return reply
        .code(201)
        .send({ success: true, data: await oneLiveActivityView(deps.store.db, row, deps.clock.now()) });
    },
  );
}

/**
 * Starts an activity (POST /live-activities, or the first call of a stream with its `streamKey`), as the endpoint
 * describes. A stream's start that meets another active activity with its key fails with the unique violation of
 * live_activities_active_stream (migrations/shared/0030-live-activity-streams.ts), and nothing is stored.
 */
export async function startLiveActivity(
  deps: AppDependencies,
  auth: AuthContext,
  reply: FastifyReply,
  requestBody: Static<typeof StartBody>,
  streamKey: string | null,
): Promise<LiveActivityRow> {
  const { audience, rest: body } = takeAudience(requestBody);
  const now = deps.clock.now();
  const checked = validateTemplateFields(body.template, body.fields, now);
  if (!checked.ok) throw validationFailed(checked.problems);
  const problems = body.alert ? alertProblems(body.alert) : [];
  const { staleAt, autoEnd } = readTiming(body, now, problems);
  problems.push(...endStatusProblems(autoEnd?.status, { template: body.template, fields: checked.fields, now }));
  if (problems.length > 0) throw validationFailed(problems);
  // APNs requires an alert on start (docs/protocols.md 2.2): the caller's, or one made from the fields.
  const alert = body.alert ? canonicalAlert(body.alert) : defaultStartAlert(body.template, checked.fields);
  const row = await admitSend(deps, auth, reply, {
    channelCode: body.channelCode,
    prepare: (channel) => {
      const draft: LiveActivityRow = {
        id: newId('liveActivity', now),
        account_id: auth.accountId,
        channel_id: channel.id,
        channel_code: channel.code,
        template: body.template,
        fields: JSON.stringify(checked.fields),
        alert: JSON.stringify(alert),
        stale_at: staleAt,
        relevance_score: body.relevanceScore ?? null,
        status: 'active',
        recipient_count: 0,
        created_at: now,
        updated_at: now,
        ended_at: null,
        dismiss_at: null,
        push_timestamp: nextPushTimestamp(0, now),
        audience: audience === null ? null : JSON.stringify(audience),
        delivery: body.delivery ?? 'auto',
        apns_channel_id: null,
        broadcast_count: 0,
        stream_key: streamKey,
        auto_end_after_ms: autoEnd?.afterMs ?? null,
        auto_end_status: autoEnd?.status ?? null,
        received_count: 0,
        opened_count: 0,
        dismissed_count: 0,
        actions_count: 0,
      };
      const push = liveActivityPushOf(draft, 'start', alert);
      assertLiveActivityPayloadsFit(push, deps.config.baseUrl);
      return { draft, push };
    },
    store: async (trx, { draft, push }, terms) => {
      const activity: LiveActivityRow = {
        ...draft,
        recipient_count: await countLiveActivityTargets(trx, draft.channel_id, body.template, audience),
        broadcast_count: await countBroadcastPart(trx, draft),
      };
      // Inserted before the quota is charged: an update locks its activity and then the account's counter, so a
      // stream's start that waits on that activity's key (live_activities_active_stream) must not hold the counter.
      await insertLiveActivity(trx, activity);
      const used = await chargeOnTerms(trx, auth.accountId, terms);
      await recordEvent(trx, {
        accountId: auth.accountId,
        type: 'live_activity.started',
        data: {
          liveActivityId: activity.id,
          channelCode: activity.channel_code,
          template: activity.template,
          fields: checked.fields,
          alert,
          recipientCount: activity.recipient_count,
        },
        now,
      });
      await enqueueLiveActivityPush(trx, deps.queue, push);
      await scheduleAutoEnd(trx, deps.queue, activity, now);
      await scheduleLiveActivityExpiry(trx, deps.queue, {
        liveActivityId: activity.id,
        expiresAt: liveActivityExpiresAt(now),
      });
      return { stored: activity, used };
    },
  });
  return row;
}
