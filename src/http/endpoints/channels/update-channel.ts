import Type from 'typebox';
import { findChannelByCode, findChannelById, updateChannel } from '../../../store/channels-queries.ts';
import { findApp } from '../../../store/apps-queries.ts';
import { hasRunningLiveActivity } from '../../../store/live-activities/live-activities-queries.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import { unknownAppId } from './unknown-app.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { assertChannelInScope } from '../../channel-scope.ts';
import { ChannelCode, errorResponses, Nullable, Success } from '../../schemas.ts';
import { JoinPageSwitchRace, switchJoinPage } from './channel-join-key.ts';
import { ChannelSchema, oneChannelView } from './channel-view.ts';
import {
  ChannelAppId,
  ChannelDescription,
  ChannelName,
  JoinPageSwitch,
  NullableFrequencyCap,
  NullableQuietHours,
  quietHoursProblems,
} from './create-channel.ts';

/**
 * Changes a channel's name, description, join page switch, app, frequency cap or quiet hours; fields left out stay as they are. The code, which
 * requests and keys' scopes name the channel by, does not change.
 *
 * Moving a channel to another app (`appId`) changes whose credentials deliver its next pushes. It is refused (409)
 * while a Live Activity of the channel runs: its pushes, and its APNs broadcast channel, belong to the app it started
 * with. A notification already being delivered finishes with the app the channel had when it was dispatched
 * (src/delivery/job-kinds.ts, `appId`).
 */
export function updateChannelEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "Change a channel's name, description, join page switch, app, frequency cap or quiet hours",
        description:
          'Fields left out stay as they are; `description: null` clears it, `frequencyCap: null` removes the cap, `quietHours: null` the quiet hours. Turning `joinPage` on creates the publishable key the page uses (scoped to this channel); turning it off revokes that key. `appId` moves the channel to another app of the account (docs/apps.md); refused with 409 `conflict` while one of its Live Activities runs.',
        tags: ['channels'],
        params: Type.Object({ code: ChannelCode }),
        body: Type.Object(
          {
            name: Type.Optional(ChannelName),
            description: Type.Optional(Nullable(ChannelDescription)),
            joinPage: Type.Optional(JoinPageSwitch),
            appId: Type.Optional(ChannelAppId),
            frequencyCap: Type.Optional(NullableFrequencyCap),
            quietHours: Type.Optional(NullableQuietHours),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success(ChannelSchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const { code } = request.params;
      const { name, description, joinPage, appId, frequencyCap, quietHours } = request.body ?? {};
      const problems = quietHoursProblems(quietHours);
      if (problems.length > 0) throw validationFailed(problems);
      assertChannelInScope(auth, code);
      const now = deps.clock.now();
      const change = () =>
        deps.store.db.transaction().execute(async (trx) => {
          const found = await findChannelByCode(trx, auth.accountId, code);
          if (!found) throw new ApiError('channel_not_found', { details: { channelCode: code } });
          if (appId !== undefined && appId !== found.app_id) {
            if (!(await findApp(trx, auth.accountId, appId))) throw unknownAppId();
            if (await hasRunningLiveActivity(trx, found.id, now)) {
              throw new ApiError('conflict', {
                message: `channel ${code} has a running Live Activity: end it before moving the channel to another app`,
                details: { field: 'appId', channelCode: code },
              });
            }
          }
          await updateChannel(trx, found.id, { name, description, appId, frequencyCap, quietHours });
          if (joinPage !== undefined)
            await switchJoinPage(trx, { channel: found, on: joinPage, secretKey: deps.secretKey, now });
          return (await findChannelById(trx, found.id))!;
        });
      // Two switches of one channel at once: the later one runs again on what the first left (then usually a no-op).
      const channel = await change().catch((error: unknown) =>
        error instanceof JoinPageSwitchRace ? change() : Promise.reject(error),
      );
      return { success: true as const, data: await oneChannelView(deps, auth.accountId, channel) };
    },
  );
}
