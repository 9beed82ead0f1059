import Type from 'typebox';
import { AUDIENCE_REQUEST_BODY_LIMIT_BYTES } from '../../../domain/limits.ts';
import type { AppDependencies } from '../../app-types.ts';
import { sendEndpoint } from '../../admission.ts';
import type { Endpoint } from '../../endpoint.ts';
import { ChannelCode, errorResponses, Success } from '../../schemas.ts';
import { acceptNotification } from './accept-notification.ts';
import { assertContentWithinBodyLimit, audienceProperties, takeAudience } from './notification-audience.ts';
import { notificationContentProperties, type NotificationRequest } from './notification-body.ts';
import { Notification, notificationView } from './notification-view.ts';

/**
 * POST /api/v1/notifications and POST /api/v1/notify, two of the original interface's pinned endpoints
 * (docs/design.md 2.4): one behaviour, with the channel's code in `channelCode` or in `channel`. Both routes are this one declaration, so they cannot drift apart.
 */
function notificationEndpoint(
  deps: AppDependencies,
  channelField: 'channelCode' | 'channel',
  docs: { summary: string; description?: string },
): Endpoint {
  const body = Type.Object(
    { [channelField]: ChannelCode, ...notificationContentProperties, ...audienceProperties },
    { additionalProperties: false },
  );
  return sendEndpoint(
    {
      schema: {
        ...docs,
        tags: ['notifications'],
        body,
        response: { 201: Success(Notification), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
      // Room for 10,000 external ids; the rest of the body is still held to 64 KiB, before validation (notification-audience.ts).
      bodyLimit: AUDIENCE_REQUEST_BODY_LIMIT_BYTES,
      preValidation: async (request) => assertContentWithinBodyLimit(request.body, request.headers['content-length']),
    },
    async (request, reply) => {
      const { audience, rest } = takeAudience(request.body as Record<string, unknown>);
      const { [channelField]: channelCode, ...content } = rest;
      const row = await acceptNotification(
        deps,
        request.auth!,
        reply,
        channelCode as string,
        content as NotificationRequest,
        audience,
      );
      return reply.code(201).send({ success: true, data: notificationView(row) });
    },
  );
}

export const sendNotificationEndpoint = (deps: AppDependencies): Endpoint =>
  notificationEndpoint(deps, 'channelCode', {
    summary: 'Send a notification to every subscriber of a channel, or to an audience in it',
    description:
      'Optionally one audience inside the channel: `externalIds` (the devices of these people), `subscriberIds`, or `tags` (`allOf` / `anyOf`). `recipientCount` counts the targeted subscribers; the quota counts one per request.',
  });

export const notifyEndpoint = (deps: AppDependencies): Endpoint =>
  notificationEndpoint(deps, 'channel', {
    summary: 'Send a notification (alternative path: the channel is named `channel`)',
    description:
      'Identical to POST /api/v1/notifications except that the channel code is in `channel`. The response is the same Notification, which names it `channelCode`.',
  });
