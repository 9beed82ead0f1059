import Type from 'typebox';
import { isLocale } from '../../../domain/device-token.ts';
import { isTimeZone, TIME_ZONE_PROBLEM } from '../../../domain/time-zone.ts';
import type { FieldProblem } from '../../../domain/schema-errors.ts';
import { MAX_TAGS_PER_SUBSCRIBER, normalizeTags, TAG_PATTERN } from '../../../domain/subscriber-tags.ts';
import { updateSubscriberDetails, type SubscriberChanges } from '../../../store/subscriber-directory-queries.ts';
import { ApiError, validationFailed } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { errorResponses, IdParams, Nullable, Success } from '../../schemas.ts';
import {
  assertRegisteredWith,
  loadSubscriber,
  requireRegistrationProof,
  subscriberDetail,
} from './subscriber-access.ts';
import { SubscriberDetailSchema } from './subscriber-detail-view.ts';
import { widgetTokenOf } from './widget-push-token.ts';
import { clearWidgetPushToken, saveWidgetPushToken } from '../../../store/widget-push-tokens-queries.ts';

const Tag = Type.String({
  pattern: TAG_PATTERN,
  description: 'Letters, digits and _ : . - (up to 64), starting with a letter or digit.',
  hint: 'must be 1–64 letters, digits or _ : . - starting with a letter or digit',
});

export function updateSubscriberEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "Change a subscriber's external id, tags, time zone, locale or widget push token",
        description:
          'Secret or publishable key. A publishable key (inside an app) may change only the subscriber it registered: it proves that with `token`, the same token it registered. Fields left out stay as they are; `tags` replaces the whole set; null clears a field.',
        tags: ['subscribers'],
        params: IdParams('subscriber'),
        body: Type.Object(
          {
            externalId: Type.Optional(
              Nullable(
                Type.String({
                  minLength: 1,
                  maxLength: 255,
                  description: 'Your id for the person this device belongs to.',
                }),
              ),
            ),
            tags: Type.Optional(
              Type.Array(Tag, {
                maxItems: MAX_TAGS_PER_SUBSCRIBER,
                description: `At most ${MAX_TAGS_PER_SUBSCRIBER}; replaces the current tags.`,
              }),
            ),
            timezone: Type.Optional(
              Nullable(Type.String({ maxLength: 64, description: 'IANA time zone, e.g. Europe/Berlin.' })),
            ),
            locale: Type.Optional(
              Nullable(Type.String({ maxLength: 35, description: 'BCP 47 language tag, e.g. de-DE.' })),
            ),
            widgetPushToken: Type.Optional(
              Nullable(
                Type.String({
                  maxLength: 400,
                  description:
                    'iOS 26: the widget push token WidgetKit gave the app (hex), replacing the one stored; null forgets it.',
                }),
              ),
            ),
            token: Type.Optional(
              Type.Unsafe<unknown>({
                description:
                  'Required with a publishable key: the device token (or Web Push subscription object) this subscriber registered with.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success(SubscriberDetailSchema), ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const body = request.body;
      requireRegistrationProof(auth, body.token, 'token', 'change');
      const problems: FieldProblem[] = [];
      if (body.timezone != null && !isTimeZone(body.timezone))
        problems.push({ field: 'timezone', message: TIME_ZONE_PROBLEM });
      if (body.locale != null && !isLocale(body.locale))
        problems.push({ field: 'locale', message: 'must be a BCP 47 language tag, like de-DE' });
      const changes: SubscriberChanges = {
        ...(body.externalId !== undefined ? { externalId: body.externalId } : {}),
        ...(body.tags !== undefined ? { tags: normalizeTags(body.tags) } : {}),
        ...(body.timezone !== undefined ? { timezone: body.timezone } : {}),
        ...(body.locale !== undefined ? { locale: body.locale } : {}),
      };
      if (Object.keys(changes).length === 0 && body.widgetPushToken === undefined)
        problems.push({
          field: '(body)',
          message: 'must change at least one of externalId, tags, timezone, locale, widgetPushToken',
        });
      if (problems.length > 0) throw validationFailed(problems);

      const now = deps.clock.now();
      const updated = await deps.store.db.transaction().execute(async (trx) => {
        const { subscriber } = await loadSubscriber(trx, auth, request.params.id);
        assertRegisteredWith(
          auth,
          subscriber,
          body.token,
          () => new ApiError('not_found', { message: 'No subscriber with that id.' }),
        );
        if (body.widgetPushToken === null) await clearWidgetPushToken(trx, subscriber.id);
        else if (body.widgetPushToken !== undefined) {
          // Only now is the platform known: the 400 is thrown before anything is written.
          const widget = widgetTokenOf(subscriber.platform, body.widgetPushToken);
          if (!widget.ok) throw validationFailed(widget.problems);
          await saveWidgetPushToken(trx, {
            subscriberId: subscriber.id,
            channelId: subscriber.channel_id,
            token: widget.token,
            now,
          });
        }
        if (Object.keys(changes).length > 0) await updateSubscriberDetails(trx, subscriber.id, changes, now);
        return loadSubscriber(trx, auth, subscriber.id);
      });
      return {
        success: true as const,
        data: await subscriberDetail(deps.store.db, updated.subscriber, updated.channelCode),
      };
    },
  );
}
