import Type from 'typebox';
import { apnsEnvironments } from '../../../domain/apns-environment.ts';
import { isLocale, normalizeToken, platforms } from '../../../domain/device-token.ts';
import { isTimeZone, TIME_ZONE_PROBLEM } from '../../../domain/time-zone.ts';
import type { FieldProblem } from '../../../domain/schema-errors.ts';
import { templateNames } from '../../../domain/live-activities/live-activity-templates.ts';
import { parseOsVersion } from '../../../domain/ios-version.ts';
import { findChannelByCode } from '../../../store/channels-queries.ts';
import { startLateJoiner } from '../../../delivery/live-activities/live-activity-catch-up.ts';
import { registerSubscriber } from '../../../store/subscribers-queries.ts';
import { withConflictRetry } from '../../../store/store-errors.ts';
import { saveWidgetPushToken, subscribersWithWidgetPushToken } from '../../../store/widget-push-tokens-queries.ts';
import { refusePushEndpoint } from '../../../delivery/web-push/web-push-endpoint-guard.ts';
import { allowsPrivateAddresses, systemResolver } from '../../../net/outbound-url-guard.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { assertChannelInScope } from '../../channel-scope.ts';
import { ChannelCode, errorResponses, StringEnum, Success } from '../../schemas.ts';
import { RegistrationToken } from './registration-token.ts';
import { widgetTokenOf } from './widget-push-token.ts';
import { subscriberView, SubscriberSchema } from './subscriber-view.ts';

export function registerSubscriberEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Register a device or browser in a channel (idempotent per channel, platform and token)',
        description:
          'Publishable or secret key. Registering the same token again returns the same subscriber (200) with its details refreshed; a new or re-activated subscriber answers 201.',
        tags: ['subscribers'],
        body: Type.Object(
          {
            channelCode: ChannelCode,
            platform: StringEnum(platforms),
            token: RegistrationToken(
              'iOS: APNs device token (hex). Android: FCM registration token. Web: the PushSubscription object.',
            ),
            pushToStartToken: Type.Optional(
              Type.String({ maxLength: 400, description: 'iOS 17.2+: the Live Activity push-to-start token (hex).' }),
            ),
            widgetPushToken: Type.Optional(
              Type.String({
                maxLength: 400,
                description:
                  "iOS 26: the widget push token WidgetKit gave the app (WidgetPushInfo.token, hex); POST /widgets/reload reloads the app's widgets through it.",
              }),
            ),
            template: Type.Optional(
              StringEnum(templateNames, {
                description:
                  'With pushToStartToken: the Live Activity template whose ActivityAttributes type issued it (iOS issues one token per type); starts of that template go to it. A token without a template serves every template the device has no token of its own for.',
              }),
            ),
            osVersion: Type.Optional(
              Type.String({
                maxLength: 16,
                description:
                  'iOS: the system version, e.g. "18.2" (UIDevice.current.systemVersion). 18 or later lets Live Activities use broadcast channels.',
              }),
            ),
            timezone: Type.Optional(Type.String({ maxLength: 64, description: 'IANA time zone, e.g. Europe/Berlin.' })),
            locale: Type.Optional(Type.String({ maxLength: 35, description: 'BCP 47 language tag, e.g. de-DE.' })),
            externalId: Type.Optional(
              Type.String({ minLength: 1, maxLength: 255, description: 'Your own id for the user or device.' }),
            ),
            environment: Type.Optional(
              StringEnum(apnsEnvironments, {
                description:
                  "iOS only: the APNs environment of the token, from the app's aps-environment entitlement (development builds: sandbox). Omitted: Clarion tries production, then the sandbox once, and remembers the one that worked.",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Success(SubscriberSchema),
          201: Success(SubscriberSchema),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const body = request.body;
      const problems: FieldProblem[] = [];
      const token = normalizeToken(body.platform, body.token);
      if (!token.ok) problems.push(...token.problems);
      else if (body.platform === 'web') {
        const policy = { allowPrivate: allowsPrivateAddresses(deps.config), resolve: systemResolver };
        const refusal = await refusePushEndpoint((body.token as { endpoint: string }).endpoint, policy);
        if (refusal) problems.push({ field: 'token.endpoint', message: refusal });
      }
      let pushToStartToken: string | null = null;
      if (body.pushToStartToken !== undefined) {
        const normalized =
          body.platform === 'ios' ? normalizeToken('ios', body.pushToStartToken, 'pushToStartToken') : null;
        if (!normalized)
          problems.push({ field: 'pushToStartToken', message: 'only iOS subscribers have a push-to-start token' });
        else if (!normalized.ok) problems.push(...normalized.problems);
        else pushToStartToken = normalized.value.token;
      }
      let widgetPushToken: string | null = null;
      if (body.widgetPushToken !== undefined) {
        const normalized = widgetTokenOf(body.platform, body.widgetPushToken);
        if (!normalized.ok) problems.push(...normalized.problems);
        else widgetPushToken = normalized.token;
      }
      if (body.environment !== undefined && body.platform !== 'ios')
        problems.push({ field: 'environment', message: 'only iOS tokens have an APNs environment' });
      if (body.template !== undefined && body.pushToStartToken === undefined)
        problems.push({ field: 'template', message: 'names the template of a pushToStartToken: send it with one' });
      if (body.osVersion !== undefined && body.platform !== 'ios')
        problems.push({ field: 'osVersion', message: 'only iOS subscribers report an osVersion' });
      else if (body.osVersion !== undefined && parseOsVersion(body.osVersion) === null)
        problems.push({ field: 'osVersion', message: 'must be an iOS version like 18.2' });
      if (body.timezone !== undefined && !isTimeZone(body.timezone))
        problems.push({ field: 'timezone', message: TIME_ZONE_PROBLEM });
      if (body.locale !== undefined && !isLocale(body.locale))
        problems.push({ field: 'locale', message: 'must be a BCP 47 language tag, like de-DE' });
      if (problems.length > 0 || !token.ok) throw validationFailed(problems);

      assertChannelInScope(auth, body.channelCode);
      const channel = await findChannelByCode(deps.store.db, auth.accountId, body.channelCode);
      if (!channel) throw new ApiError('channel_not_found', { details: { channelCode: body.channelCode } });

      const now = deps.clock.now();
      // Run again if PostgreSQL aborts it for a deadlock: a device registering again while the worker settles the
      // late-joiner start its first registration queued takes the subscriber row and that job in the other order.
      // The registration is an upsert, so running it twice stores it once.
      const { subscriber, created } = await withConflictRetry(() =>
        deps.store.db.transaction().execute(async (trx) => {
          const registered = await registerSubscriber(trx, {
            accountId: auth.accountId,
            channelId: channel.id,
            channelCode: channel.code,
            platform: body.platform,
            token: token.value.token,
            tokenHash: token.value.tokenHash,
            pushToStartToken,
            pushToStartTemplate: body.template ?? null,
            osVersion: body.osVersion ?? null,
            timezone: body.timezone ?? null,
            locale: body.locale ?? null,
            externalId: body.externalId ?? null,
            apnsEnvironment: body.environment ?? null,
            now,
          });
          if (widgetPushToken !== null)
            await saveWidgetPushToken(trx, {
              subscriberId: registered.subscriber.id,
              channelId: channel.id,
              token: widgetPushToken,
              now,
            });
          // A device that joins while an activity of its channel runs is started on it at once (late joiners).
          if (pushToStartToken !== null) await startLateJoiner(trx, deps.queue, registered.subscriber, now);
          return registered;
        }),
      );
      const widgetPushEnabled =
        widgetPushToken !== null ||
        (await subscribersWithWidgetPushToken(deps.store.db, [subscriber.id])).has(subscriber.id);
      return reply
        .code(created ? 201 : 200)
        .send({ success: true, data: subscriberView(subscriber, channel.code, widgetPushEnabled) });
    },
  );
}
