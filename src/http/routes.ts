import type { AppDependencies, ClarionApp } from './app-types.ts';
import { registerCreateChannel } from './endpoints/channels/create-channel.ts';
import { registerGetChannel } from './endpoints/channels/get-channel.ts';
import { registerListChannels } from './endpoints/channels/list-channels.ts';
import { registerStartLiveActivity } from './endpoints/live-activities/start-live-activity.ts';
import { registerCancelNotification } from './endpoints/notifications/cancel-notification.ts';
import { registerGetNotification } from './endpoints/notifications/get-notification.ts';
import { registerListDeliveryFailures } from './endpoints/notifications/list-delivery-failures.ts';
import { registerListNotifications } from './endpoints/notifications/list-notifications.ts';
import { registerSendNotification } from './endpoints/notifications/send-notification.ts';
import { registerRegisterSubscriber } from './endpoints/subscribers/register-subscriber.ts';
import { registerUnsubscribeSubscriber } from './endpoints/subscribers/unsubscribe-subscriber.ts';
import { registerGetUsage } from './endpoints/usage/get-usage.ts';

/** The route table: every /api/v1 endpoint, one module each (src/http/endpoints/<area>/<endpoint>.ts). */
export function registerApiRoutes(app: ClarionApp, deps: AppDependencies): void {
  registerSendNotification(app, deps); // POST /notifications, POST /notify
  registerGetNotification(app, deps); // GET /notifications/:id
  registerListNotifications(app, deps); // GET /notifications
  registerListDeliveryFailures(app, deps); // GET /notifications/:id/failures
  registerCancelNotification(app, deps); // POST /notifications/:id/cancel
  registerStartLiveActivity(app, deps); // POST /live-activities
  registerRegisterSubscriber(app, deps); // POST /subscribers
  registerUnsubscribeSubscriber(app, deps); // POST /subscribers/:id/unsubscribe
  registerCreateChannel(app, deps); // POST /channels
  registerListChannels(app, deps); // GET /channels
  registerGetChannel(app, deps); // GET /channels/:code
  registerGetUsage(app, deps); // GET /usage
}
