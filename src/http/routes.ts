import type { AppDependencies, ClarionApp } from './app-types.ts';
import { registerCreateChannel } from './endpoints/channels/create-channel.ts';
import { registerGetChannel } from './endpoints/channels/get-channel.ts';
import { registerListChannels } from './endpoints/channels/list-channels.ts';
import { registerEndLiveActivity } from './endpoints/live-activities/end-live-activity.ts';
import { registerGetLiveActivity } from './endpoints/live-activities/get-live-activity.ts';
import { registerListLiveActivities } from './endpoints/live-activities/list-live-activities.ts';
import { registerReportLiveActivityToken } from './endpoints/live-activities/report-live-activity-token.ts';
import { registerStartLiveActivity } from './endpoints/live-activities/start-live-activity.ts';
import { registerUpdateLiveActivity } from './endpoints/live-activities/update-live-activity.ts';
import { registerCancelNotification } from './endpoints/notifications/cancel-notification.ts';
import { registerGetNotification } from './endpoints/notifications/get-notification.ts';
import { registerListDeliveryFailures } from './endpoints/notifications/list-delivery-failures.ts';
import { registerListNotifications } from './endpoints/notifications/list-notifications.ts';
import { registerSendNotification } from './endpoints/notifications/send-notification.ts';
import { registerRegisterSubscriber } from './endpoints/subscribers/register-subscriber.ts';
import { registerUnsubscribeSubscriber } from './endpoints/subscribers/unsubscribe-subscriber.ts';
import { registerGetUsage } from './endpoints/usage/get-usage.ts';
import { registerCreateWebhook } from './endpoints/webhooks/create-webhook.ts';
import { registerDeleteWebhook } from './endpoints/webhooks/delete-webhook.ts';
import { registerEnableWebhook } from './endpoints/webhooks/enable-webhook.ts';
import { registerGetWebhook } from './endpoints/webhooks/get-webhook.ts';
import { registerGetWebhookSecret } from './endpoints/webhooks/get-webhook-secret.ts';
import { registerListWebhookMessages } from './endpoints/webhooks/list-webhook-messages.ts';
import { registerListWebhooks } from './endpoints/webhooks/list-webhooks.ts';
import { registerRetryWebhookMessage } from './endpoints/webhooks/retry-webhook-message.ts';
import { registerRotateWebhookSecret } from './endpoints/webhooks/rotate-webhook-secret.ts';
import { registerTestWebhook } from './endpoints/webhooks/test-webhook.ts';
import { registerGetSession } from './endpoints/auth/get-session.ts';
import { registerSignin } from './endpoints/auth/signin.ts';
import { registerSignout } from './endpoints/auth/signout.ts';
import { registerSignup } from './endpoints/auth/signup.ts';
import { registerSwitchAccount } from './endpoints/auth/switch-account.ts';
import { registerCreateKey } from './endpoints/keys/create-key.ts';
import { registerListKeys } from './endpoints/keys/list-keys.ts';
import { registerRevokeKey } from './endpoints/keys/revoke-key.ts';
import { registerRotateKey } from './endpoints/keys/rotate-key.ts';
import { registerGetDailyUsage } from './endpoints/usage/get-daily-usage.ts';

/** The route table: every /api/v1 endpoint, one module each (src/http/endpoints/<area>/<endpoint>.ts). */
export function registerApiRoutes(app: ClarionApp, deps: AppDependencies): void {
  registerSendNotification(app, deps); // POST /notifications, POST /notify
  registerGetNotification(app, deps); // GET /notifications/:id
  registerListNotifications(app, deps); // GET /notifications
  registerListDeliveryFailures(app, deps); // GET /notifications/:id/failures
  registerCancelNotification(app, deps); // POST /notifications/:id/cancel
  registerStartLiveActivity(app, deps); // POST /live-activities
  registerUpdateLiveActivity(app, deps); // POST /live-activities/:id/update
  registerEndLiveActivity(app, deps); // POST /live-activities/:id/end
  registerGetLiveActivity(app, deps); // GET /live-activities/:id
  registerListLiveActivities(app, deps); // GET /live-activities
  registerReportLiveActivityToken(app, deps); // POST /live-activities/:id/tokens (publishable)
  registerRegisterSubscriber(app, deps); // POST /subscribers
  registerUnsubscribeSubscriber(app, deps); // POST /subscribers/:id/unsubscribe
  registerCreateChannel(app, deps); // POST /channels
  registerListChannels(app, deps); // GET /channels
  registerGetChannel(app, deps); // GET /channels/:code
  registerGetUsage(app, deps); // GET /usage
  // Webhooks (docs/webhooks.md): unscoped secret keys or a dashboard session.
  registerCreateWebhook(app, deps); // POST /webhooks
  registerListWebhooks(app, deps); // GET /webhooks
  registerGetWebhook(app, deps); // GET /webhooks/:id
  registerGetWebhookSecret(app, deps); // GET /webhooks/:id/secret
  registerDeleteWebhook(app, deps); // DELETE /webhooks/:id
  registerRotateWebhookSecret(app, deps); // POST /webhooks/:id/rotate-secret
  registerEnableWebhook(app, deps); // POST /webhooks/:id/enable
  registerTestWebhook(app, deps); // POST /webhooks/:id/test
  registerListWebhookMessages(app, deps); // GET /webhooks/:id/messages
  registerRetryWebhookMessage(app, deps); // POST /webhook-messages/:id/retry
  registerGetDailyUsage(app, deps); // GET /usage/daily
  // Dashboard: sign-up, sign-in and the session (docs/dashboard.md); key management takes a session, never a key.
  registerSignup(app, deps); // POST /auth/signup
  registerSignin(app, deps); // POST /auth/signin
  registerSignout(app, deps); // POST /auth/signout
  registerGetSession(app, deps); // GET /auth/session
  registerSwitchAccount(app, deps); // POST /auth/switch-account
  registerListKeys(app, deps); // GET /keys
  registerCreateKey(app, deps); // POST /keys
  registerRevokeKey(app, deps); // POST /keys/:id/revoke
  registerRotateKey(app, deps); // POST /keys/:id/rotate
}
