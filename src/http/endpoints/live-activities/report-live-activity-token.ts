import Type from 'typebox';
import { toIso } from '../../../domain/clock.ts';
import { normalizeToken } from '../../../domain/device-token.ts';
import { effectiveStatus } from '../../../domain/live-activities/live-activity-lifecycle.ts';
import { updateLateJoiner } from '../../../delivery/live-activities/live-activity-catch-up.ts';
import { saveLiveActivityToken } from '../../../store/live-activities/live-activity-tokens-queries.ts';
import { findSubscriber } from '../../../store/subscribers-queries.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Success, Timestamp } from '../../schemas.ts';
import { assertRegisteredWith, requireRegistrationProof } from '../subscribers/subscriber-access.ts';
import { activityEnded, activityNotStarted, findVisibleLiveActivity } from './live-activity-access.ts';

const LiveActivityTokenSchema = Type.Object(
  {
    liveActivityId: Type.String(),
    subscriberId: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'LiveActivityToken', description: 'A reported per-activity token (the token itself is never shown).' },
);

/**
 * POST /api/v1/live-activities/{id}/tokens: an iOS app reports the update token the system minted for a Live
 * Activity (`activity.pushTokenUpdates`, docs/protocols.md 2.3) with the publishable key it registers with, proving
 * which subscriber it is with that subscriber's device token (subscriber-access.ts). One token per
 * subscriber and activity: a new report replaces the old token, which must no longer be used. Updates and the end go
 * to these tokens; free of quota (it is the device speaking, not the caller).
 */
export function reportLiveActivityTokenEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "Report an iOS device's update token for a Live Activity",
        description:
          "Publishable or secret key. The app sends each value of the activity's `pushTokenUpdates` with its own subscriber id (from POST /subscribers) and, with a publishable key, the device token it registered that subscriber with as `deviceToken` (403 without it, 404 with another). 201 for the subscriber's first token for the activity, 200 when it replaces an earlier one. The id is in the activity's `attributes.activityId` (docs/live-activities.md).",
        tags: ['live activities'],
        params: IdParams('liveActivity'),
        body: Type.Object(
          {
            subscriberId: Type.String({
              maxLength: 64,
              description: 'sub_… id of the device, as POST /subscribers returned it.',
            }),
            token: Type.String({ maxLength: 400, description: "The activity's push token in hex." }),
            deviceToken: Type.Optional(
              Type.String({
                maxLength: 400,
                description:
                  'Required with a publishable key: the APNs device token (hex) this subscriber registered with (POST /subscribers `token`).',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Success(LiveActivityTokenSchema),
          201: Success(LiveActivityTokenSchema),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const { subscriberId, deviceToken } = request.body;
      requireRegistrationProof(auth, deviceToken, 'deviceToken', 'report Live Activity tokens for');
      const token = normalizeToken('ios', request.body.token, 'token');
      if (!token.ok) throw validationFailed(token.problems);
      const activity = await findVisibleLiveActivity(deps, auth, request.params.id);
      const subscriber = await findSubscriber(deps.store.db, auth.accountId, subscriberId);
      // Only a device of the activity's channel can have it; any other id names nothing this activity knows.
      const noSuchSubscriber = () =>
        new ApiError('not_found', {
          message: "No active subscriber with that id in the activity's channel.",
          details: { subscriberId },
        });
      if (!subscriber || subscriber.channel_id !== activity.channel_id || subscriber.status !== 'active')
        throw noSuchSubscriber();
      assertRegisteredWith(auth, subscriber, deviceToken, noSuchSubscriber);
      if (subscriber.platform !== 'ios')
        throw validationFailed([{ field: 'subscriberId', message: 'only iOS subscribers have Live Activity tokens' }]);
      const now = deps.clock.now();
      const { status } = effectiveStatus(activity, now);
      if (status === 'ended' || status === 'canceled') throw activityEnded(activity, now);
      // No device can hold a token for an activity whose start has not gone out.
      if (status === 'scheduled') throw activityNotStarted(activity);
      const { row, created } = await deps.store.db.transaction().execute(async (trx) => {
        const saved = await saveLiveActivityToken(trx, {
          liveActivityId: activity.id,
          subscriberId: subscriber.id,
          token: token.value.token,
          now,
        });
        // A device that reports its token after updates went out gets the current state now (late joiners).
        await updateLateJoiner(trx, deps.queue, activity, subscriber.id);
        return saved;
      });
      return reply.code(created ? 201 : 200).send({
        success: true,
        data: {
          liveActivityId: row.live_activity_id,
          subscriberId: row.subscriber_id,
          createdAt: toIso(row.created_at),
          updatedAt: toIso(row.updated_at),
        },
      });
    },
  );
}
