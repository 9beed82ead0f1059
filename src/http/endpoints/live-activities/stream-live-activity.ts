import type { FastifyReply } from 'fastify';
import Type, { type Static } from 'typebox';
import { recordExpiry } from '../../../delivery/live-activities/live-activity-expire-job.ts';
import { effectiveStatus } from '../../../domain/live-activities/live-activity-lifecycle.ts';
import type { TemplateFields } from '../../../domain/live-activities/live-activity-templates.ts';
import {
  findActiveStreamActivity,
  type LiveActivityRow,
} from '../../../store/live-activities/live-activities-queries.ts';
import { isUniqueViolation } from '../../../store/store-errors.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import type { AppDependencies, AuthContext } from '../../app-types.ts';
import { assertChannelInScope } from '../../channel-scope.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { ChannelCode, errorResponses, StringEnum, Success } from '../../schemas.ts';
import { changeLiveActivity, type LiveActivityChange } from './change-live-activity.ts';
import { EndBody } from './end-live-activity.ts';
import { startLiveActivity, StartBody } from './start-live-activity.ts';
import { LiveActivitySchema, oneLiveActivityView, Priority } from './live-activity-view.ts';

/** A stream key: the caller's own id for what the activity follows (a build id, an order number), URL-safe. */
const StreamParams = Type.Object({
  key: Type.String({
    pattern: '^[A-Za-z0-9._~-]{1,128}$',
    description: 'Your key for the stream: 1–128 URL-safe characters (letters, digits, `.`, `_`, `~`, `-`).',
    hint: 'must be 1 to 128 URL-safe characters: letters, digits, ".", "_", "~" or "-"',
  }),
});

const StreamBody = Type.Object(
  { ...StartBody.properties, priority: Type.Optional(Priority) },
  { additionalProperties: false },
);

const StreamEndBody = Type.Object({ channelCode: ChannelCode, ...EndBody.properties }, { additionalProperties: false });

const streamResult = <E extends string>(events: readonly E[], description: string) =>
  Type.Object(
    { ...LiveActivitySchema.properties, event: StringEnum(events, { description }) },
    { title: 'LiveActivityStreamResult' },
  );
const StreamResult = streamResult(
  ['started', 'updated'] as const,
  '`started`: no activity of the stream was active, so this call started one (201); `updated`: it updated the active one (200).',
);
const StreamEndResult = streamResult(['ended'] as const, 'The stream’s activity ended.');

/**
 * POST /api/v1/live-activities/streams/{key} (docs/live-activities.md, "Streams"): starts an activity for the key
 * when none of the channel is active with it, and updates it otherwise (driveStream), so a caller drives an activity
 * with nothing but its own id. A plain endpoint, not a send endpoint: its update path does not re-read the key's
 * standing, so the auth hook checks it in full.
 */
export function streamLiveActivityEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Start or update the Live Activity of a stream key',
        description:
          'The body of a start (`channelCode`, `template`, `fields`, …) plus `priority`. The first call, or the first after the stream’s activity ended, starts one (201, `event: "started"`; `fields` complete for the template); later calls update it (200, `event: "updated"`; `fields` merged; `alert`, `staleAt` or `staleAfterSeconds`, `endAfterSecondsWithoutUpdate`, `endStatus`, `priority` and `relevanceScore` as on an update; the audience and `delivery` are the start’s). With `sendAt` the call that starts one schedules it (`status: "scheduled"`); until it starts, later calls update what it will start with, without a push or a charge, and `sendAt` on them is refused. A call with another template while one is active is refused. Counts one against the monthly quota.',
        tags: ['live activities'],
        params: StreamParams,
        body: StreamBody,
        response: {
          200: Success(StreamResult),
          201: Success(StreamResult),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const { key } = request.params;
      const { priority, ...start } = request.body;
      // Asked first, as a start does: a scoped key learns nothing about streams of channels outside its reach.
      assertChannelInScope(auth, start.channelCode);
      const outcome = await driveStream(deps, auth, reply, start.channelCode, key, {
        start: async () => start,
        change: (current) => {
          if (current.template !== start.template)
            throw validationFailed([
              {
                field: 'template',
                message: `must be ${current.template}, the template of the stream's active activity (end it to start another)`,
              },
            ]);
          if (start.sendAt !== undefined)
            throw validationFailed([
              {
                field: 'sendAt',
                message: `goes only with the call that starts the stream's activity: it is ${current.status} already`,
              },
            ]);
          return {
            event: 'update',
            fields: start.fields as TemplateFields,
            alert: start.alert,
            staleAt: start.staleAt,
            staleAfterSeconds: start.staleAfterSeconds,
            endAfterSecondsWithoutUpdate: start.endAfterSecondsWithoutUpdate,
            endStatus: start.endStatus,
            priority,
            relevanceScore: start.relevanceScore,
          };
        },
      });
      // This plan always acts (a start when idle, an update when active), so the outcome has its activity.
      if (outcome.row === null) throw new Error('a stream call without a start was ignored');
      const event = outcome.event === 'started' ? 'started' : 'updated';
      return reply
        .code(event === 'started' ? 201 : 200)
        .send({ success: true, data: await viewOf(deps, outcome.row, event) });
    },
  );
}

/** What a stream call does: the start when none of its activities is active, and the change of the active one. */
export interface StreamPlan {
  /** The start's body, or null when there is nothing to start (the call only changes an active activity). */
  start: () => Promise<Static<typeof StartBody> | null>;
  /** The update or end of the active activity, or null when this call leaves it as it is. */
  change: (current: LiveActivityRow) => LiveActivityChange | null;
}

export type StreamOutcome =
  | { event: 'started' | 'updated' | 'ended'; row: LiveActivityRow }
  | { event: 'unchanged'; row: LiveActivityRow }
  | { event: 'ignored'; row: null };

/**
 * Drives a stream key's activity (docs/live-activities.md, "Streams"), for the stream routes and the relays: starts
 * one when none of the channel is active with the key, and changes the active one otherwise. Concurrent first calls
 * start exactly one: the second's insert meets the partial unique index (migrations/shared/0030-live-activity-streams.ts)
 * and it changes the activity the first started. A change the plan leaves out leaves the activity as it is
 * (`unchanged`: no push, no charge); a start it leaves out, nothing at all (`ignored`).
 */
export async function driveStream(
  deps: AppDependencies,
  auth: AuthContext,
  reply: FastifyReply,
  channelCode: string,
  key: string,
  plan: StreamPlan,
): Promise<StreamOutcome> {
  // Twice at most: a concurrent call may start the stream's activity, or end it, between the read and the write.
  for (let attempt = 1; ; attempt += 1) {
    const current = await activeStreamActivity(deps, auth, channelCode, key);
    if (current) {
      const change = plan.change(current);
      if (change === null) return { event: 'unchanged', row: current };
      try {
        const row = await changeLiveActivity(deps, auth, reply, current.id, change);
        return { event: change.event === 'end' ? 'ended' : 'updated', row };
      } catch (error) {
        if (attempt === 1 && error instanceof ApiError && error.code === 'activity_ended') continue;
        throw error;
      }
    }
    const start = await plan.start();
    if (start === null) return { event: 'ignored', row: null };
    try {
      return { event: 'started', row: await startLiveActivity(deps, auth, reply, start, key) };
    } catch (error) {
      if (attempt === 1 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}

/**
 * POST /api/v1/live-activities/streams/{key}/end: ends the stream's active activity, as POST /live-activities/{id}/end
 * does; 404 when none of the channel is active with the key. The next call of the stream starts a new one.
 */
export function endStreamLiveActivityEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'End the Live Activity of a stream key',
        description:
          '`channelCode`, and what an end takes (`fields`, `dismissAt`, `alert`, `priority`). 404 when no activity of the stream is active. Counts one against the monthly quota.',
        tags: ['live activities'],
        params: StreamParams,
        body: StreamEndBody,
        response: { 200: Success(StreamEndResult), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const { channelCode, fields, ...end } = request.body;
      assertChannelInScope(auth, channelCode);
      const outcome = await driveStream(deps, auth, reply, channelCode, request.params.key, {
        start: async () => null,
        change: () => ({ event: 'end', fields: fields as TemplateFields | undefined, ...end }),
      });
      if (outcome.event === 'ignored')
        throw new ApiError('not_found', {
          message: 'No active Live Activity with that stream key in that channel.',
          details: { channelCode, key: request.params.key },
        });
      const row = outcome.row;
      return reply.code(200).send({ success: true, data: await viewOf(deps, row, 'ended') });
    },
  );
}

/**
 * The stream's activity if it is active or scheduled: one past its 8 hours whose expiry is not recorded yet is recorded ended
 * here (the expiry job would do the same), so that the key is free for the next start.
 */
async function activeStreamActivity(
  deps: AppDependencies,
  auth: AuthContext,
  channelCode: string,
  streamKey: string,
): Promise<LiveActivityRow | undefined> {
  const found = await findActiveStreamActivity(deps.store.db, { accountId: auth.accountId, channelCode, streamKey });
  if (!found) return undefined;
  const now = deps.clock.now();
  const { status } = effectiveStatus(found, now);
  // A scheduled activity holds its key too: the stream's calls update it until it starts.
  if (status === 'active' || status === 'scheduled') return found;
  await deps.store.db.transaction().execute((trx) => recordExpiry(trx, deps.queue, found.id, now));
  return undefined;
}

async function viewOf<E extends string>(
  deps: AppDependencies,
  row: LiveActivityRow,
  event: E,
): Promise<Static<typeof LiveActivitySchema> & { event: E }> {
  return { ...(await oneLiveActivityView(deps.store.db, row, deps.clock.now())), event };
}
