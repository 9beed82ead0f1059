import type { FastifyReply } from 'fastify';
import Type, { type Static } from 'typebox';
import { scheduleLiveActivityStart } from '../../../delivery/live-activities/live-activity-jobs.ts';
import { liveActivityPushOf } from '../../../delivery/live-activities/live-activity-snapshot.ts';
import {
  liveActivityStartCounts,
  recordLiveActivityStart,
} from '../../../delivery/live-activities/live-activity-start-job.ts';
import { newId } from '../../../domain/ids.ts';
import {
  alertProblems,
  canonicalAlert,
  defaultStartAlert,
} from '../../../domain/live-activities/live-activity-alert.ts';
import { nextPushTimestamp } from '../../../domain/live-activities/live-activity-lifecycle.ts';
import {
  templateNames,
  templateSchemas,
  validateTemplateFields,
} from '../../../domain/live-activities/live-activity-templates.ts';
import {
  insertLiveActivity,
  liveActivityDeliveries,
  type LiveActivityRow,
} from '../../../store/live-activities/live-activities-queries.ts';
import { audienceProperties, takeAudience } from '../notifications/notification-audience.ts';
import type { FieldProblem } from '../../../domain/schema-errors.ts';
import { validationFailed } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { admitSend, sendEndpoint } from '../../admission.ts';
import type { Endpoint } from '../../endpoint.ts';
import { chargeOnTerms } from '../../quota.ts';
import { ChannelCode, errorResponses, StringEnum, Success } from '../../schemas.ts';
import { assertLiveActivityPayloadsFit } from './live-activity-payload-size.ts';
import { endStatusProblems, readSendAt, readTiming, SendAt, timingProperties } from './live-activity-timing.ts';
import { Alert, oneLiveActivityView, LiveActivitySchema, RelevanceScore } from './live-activity-view.ts';

const templateList = templateNames.map((name) => `\`${name}\``).join(', ');
const templateComponentList = templateNames
  .map((name) => String((templateSchemas[name] as { title?: string }).title))
  .join(', ');

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
    sendAt: Type.Optional(SendAt),
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
 * src/delivery/live-activities/) and the job that ends it after 8 hours. With `sendAt`: the quota unit, the activity
 * (`scheduled`) and the job that starts it then (live-activity-start-job.ts), which writes the rest. A 201 means all of
 * them exist; a 429 means none does.
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
  const sendAtProblems: FieldProblem[] = [];
  const sendAt = readSendAt(body.sendAt, now, sendAtProblems);
  if (sendAtProblems.length > 0) throw validationFailed(sendAtProblems);
  // A scheduled activity's times (a timer's durationSeconds, staleAfterSeconds) count from its start.
  const startAt = sendAt ?? now;
  const checked = validateTemplateFields(body.template, body.fields, startAt);
  if (!checked.ok) throw validationFailed(checked.problems);
  const problems = body.alert ? alertProblems(body.alert) : [];
  const { staleAt, autoEnd } = readTiming(body, startAt, problems);
  problems.push(
    ...endStatusProblems(autoEnd?.status, { template: body.template, fields: checked.fields, now: startAt }),
  );
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
        status: sendAt === null ? 'active' : 'scheduled',
        recipient_count: 0,
        created_at: now,
        send_at: sendAt,
        started_at: sendAt === null ? now : null,
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
    store: async (trx, { draft }, terms) => {
      // A scheduled activity is counted when it starts: who it reaches is who is there then.
      const activity: LiveActivityRow =
        sendAt === null
          ? await liveActivityStartCounts(trx, draft).then((counts) => ({
              ...draft,
              recipient_count: counts.recipientCount,
              broadcast_count: counts.broadcastCount,
            }))
          : draft;
      // Inserted before the quota is charged: an update locks its activity and then the account's counter, so a
      // stream's start that waits on that activity's key (live_activities_active_stream) must not hold the counter.
      await insertLiveActivity(trx, activity);
      const used = await chargeOnTerms(trx, auth.accountId, terms);
      if (sendAt === null) await recordLiveActivityStart(trx, deps.queue, activity, now);
      else await scheduleLiveActivityStart(trx, deps.queue, { liveActivityId: activity.id, sendAt });
      return { stored: activity, used };
    },
  });
  return row;
}
