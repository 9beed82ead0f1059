import Type from 'typebox';
import { ChannelCodeTakenError, createChannel, findChannelById } from '../../../store/channels-queries.ts';
import { appForNewChannel } from '../../../store/apps-queries.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import { unknownAppId } from './unknown-app.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { assertChannelInScope } from '../../channel-scope.ts';
import { ChannelCode, errorResponses, Success } from '../../schemas.ts';
import {
  FREQUENCY_CAP_MAX_COUNT,
  FREQUENCY_CAP_MAX_PERIOD_SECONDS,
  FREQUENCY_CAP_MIN_PERIOD_SECONDS,
} from '../../../domain/frequency-cap.ts';
import { joinPageBase, switchJoinPage } from './channel-join-key.ts';
import { channelView, ChannelSchema } from './channel-view.ts';

export const ChannelName = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Display name; defaults to the code.',
});
export const ChannelDescription = Type.String({ maxLength: 500 });
export const ChannelAppId = Type.String({
  maxLength: 64,
  description:
    "The app (app_…) whose credentials deliver this channel's pushes; default at creation: the account's first app, else the instance's built-in app (docs/apps.md).",
});
export const FrequencyCapSchema = Type.Object(
  {
    count: Type.Integer({
      minimum: 1,
      maximum: FREQUENCY_CAP_MAX_COUNT,
      description: 'At most this many notifications of the channel per subscriber in any rolling period.',
    }),
    periodSeconds: Type.Integer({
      minimum: FREQUENCY_CAP_MIN_PERIOD_SECONDS,
      maximum: FREQUENCY_CAP_MAX_PERIOD_SECONDS,
      description: 'The period, in seconds: 60 to 2,592,000 (30 days).',
    }),
  },
  {
    additionalProperties: false,
    title: 'FrequencyCap',
    description:
      'A subscriber that already received `count` notifications of the channel in the last `periodSeconds` is skipped as frequency_capped; a send with ignoreFrequencyCap passes (and counts). Silent pushes and Live Activities are neither capped nor counted.',
  },
);

/** A cap, or null for none; one message for whatever is wrong inside it. */
export const NullableFrequencyCap = Type.Union([FrequencyCapSchema, Type.Null()], {
  hint: `must be null or {"count": 1 to ${FREQUENCY_CAP_MAX_COUNT}, "periodSeconds": ${FREQUENCY_CAP_MIN_PERIOD_SECONDS} to ${FREQUENCY_CAP_MAX_PERIOD_SECONDS}} and nothing else`,
});

const LocalTime = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' });

/** Quiet hours, or null for none; one message for whatever is wrong inside them. */
export const NullableQuietHours = Type.Union(
  [
    Type.Object(
      { start: LocalTime, end: LocalTime },
      {
        additionalProperties: false,
        title: 'QuietHours',
        description:
          'From `start` to `end` (24-hour "HH:MM") in each subscriber\'s time zone (the account\'s default for one without, else UTC); a start after the end spans midnight. A push due inside them waits until they end, unless it expires first (expired); a send with ignoreQuietHours goes out at once. Silent pushes and Live Activities are not held.',
      },
    ),
    Type.Null(),
  ],
  { hint: 'must be null or {"start", "end"}, each a 24-hour time like 22:00, and nothing else' },
);

/** What a schema cannot say of quiet hours: a window needs two different times. */
export function quietHoursProblems(quietHours: { start: string; end: string } | null | undefined) {
  return quietHours && quietHours.start === quietHours.end
    ? [{ field: 'quietHours.end', message: 'must differ from start' }]
    : [];
}

export const JoinPageSwitch = Type.Boolean({
  description:
    'Turns the public join page /join/<account slug>/<code> on or off (docs/web-push.md, "Join page"); off by default.',
});

export function createChannelEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Create a channel',
        tags: ['channels'],
        body: Type.Object(
          {
            code: ChannelCode,
            name: Type.Optional(ChannelName),
            description: Type.Optional(ChannelDescription),
            joinPage: Type.Optional(JoinPageSwitch),
            frequencyCap: Type.Optional(NullableFrequencyCap),
            quietHours: Type.Optional(NullableQuietHours),
            appId: Type.Optional(
              Type.Union([ChannelAppId, Type.Null()], {
                description:
                  "The app (app_…) whose credentials deliver this channel's pushes; null: the instance's built-in app. Left out: the account's first app, else the built-in app (docs/apps.md).",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: Success(ChannelSchema), ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const { code, name, description, joinPage, frequencyCap, quietHours } = request.body;
      const problems = quietHoursProblems(quietHours);
      if (problems.length > 0) throw validationFailed(problems);
      assertChannelInScope(auth, code);
      const app = await appForNewChannel(deps.store.db, auth.accountId, request.body.appId);
      if (app === 'not_found') throw unknownAppId();
      const now = deps.clock.now();
      try {
        const channel = await deps.store.db.transaction().execute(async (trx) => {
          const created = await createChannel(trx, {
            accountId: auth.accountId,
            code,
            name: name ?? code,
            description: description ?? null,
            appId: app.appId,
            frequencyCap: frequencyCap ?? null,
            quietHours: quietHours ?? null,
            now,
          });
          if (!joinPage) return created;
          await switchJoinPage(trx, { channel: created, on: true, secretKey: deps.secretKey, now });
          return (await findChannelById(trx, created.id))!;
        });
        return reply
          .code(201)
          .send({ success: true, data: channelView(channel, undefined, await joinPageBase(deps, auth.accountId)) });
      } catch (error) {
        if (error instanceof ChannelCodeTakenError) {
          throw new ApiError('conflict', { message: error.message, details: { field: 'code', channelCode: code } });
        }
        throw error;
      }
    },
  );
}
