import Type from 'typebox';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { ChannelCode, errorResponses, Success } from '../../schemas.ts';
import { acceptNotification } from './accept-notification.ts';
import { notificationContentProperties, type NotificationContent } from './notification-body.ts';
import { Notification, notificationView } from './notification-view.ts';

/**
 * POST /api/v1/notifications (seed 4.1) and POST /api/v1/notify (seed 4.3): one behaviour, with the channel's code in
 * `channelCode` or in `channel`. Both routes are this one declaration, so they cannot drift apart.
 */
function sendEndpoint(deps: AppDependencies, channelField: 'channelCode' | 'channel', docs: { summary: string; description?: string }): Endpoint {
  const body = Type.Object({ [channelField]: ChannelCode, ...notificationContentProperties }, { additionalProperties: false });
  return endpoint(
    { schema: { ...docs, tags: ['notifications'], body, response: { 201: Success(Notification), ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) } } },
    async (request, reply) => {
      const { [channelField]: channelCode, ...content } = request.body as Record<string, unknown>;
      const row = await acceptNotification(deps, request.auth!, reply, channelCode as string, content as NotificationContent);
      return reply.code(201).send({ success: true, data: notificationView(row) });
    },
  );
}

export const sendNotificationHandler = (deps: AppDependencies): Endpoint =>
  sendEndpoint(deps, 'channelCode', { summary: 'Send a notification to every subscriber of a channel' });

export const notifyHandler = (deps: AppDependencies): Endpoint =>
  sendEndpoint(deps, 'channel', {
    summary: 'Send a notification (alternative path: the channel is named `channel`)',
    description:
      'Identical to POST /api/v1/notifications except that the channel code is in `channel`. The response is the same Notification, which names it `channelCode`.',
  });
