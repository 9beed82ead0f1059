import Type from 'typebox';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { ChannelCode, errorResponses, Success } from '../../schemas.ts';
import { acceptNotification } from './accept-notification.ts';
import { notificationContentProperties } from './notification-body.ts';
import { Notification, notificationView } from './notification-view.ts';

const errors = errorResponses(400, 401, 403, 404, 409, 413, 415, 429);

/** POST /api/v1/notifications (seed 4.1) and POST /api/v1/notify (seed 4.3): one behaviour, two field names. */
export function sendNotificationHandler(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Send a notification to every subscriber of a channel',
        tags: ['notifications'],
        body: Type.Object({ channelCode: ChannelCode, ...notificationContentProperties }, { additionalProperties: false }),
        response: { 201: Success(Notification), ...errors },
      },
    },
    async (request, reply) => {
      const { channelCode, ...content } = request.body;
      const row = await acceptNotification(deps, request.auth!, reply, channelCode, content);
      return reply.code(201).send({ success: true, data: notificationView(row) });
    },
  );
}

export function notifyHandler(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: 'Send a notification (alternative path: the channel is named `channel`)',
        description: 'Identical to POST /api/v1/notifications except that the channel code is in `channel`. The response is the same Notification, which names it `channelCode`.',
        tags: ['notifications'],
        body: Type.Object({ channel: ChannelCode, ...notificationContentProperties }, { additionalProperties: false }),
        response: { 201: Success(Notification), ...errors },
      },
    },
    async (request, reply) => {
      const { channel, ...content } = request.body;
      const row = await acceptNotification(deps, request.auth!, reply, channel, content);
      return reply.code(201).send({ success: true, data: notificationView(row) });
    },
  );
}
