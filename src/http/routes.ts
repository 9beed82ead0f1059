import type { AppDependencies, ClarionApp, RouteAuth } from './app-types.ts';
import type { EndpointFactory } from './endpoint.ts';
import { getSessionHandler } from './endpoints/auth/get-session.ts';
import { signinHandler } from './endpoints/auth/signin.ts';
import { signoutHandler } from './endpoints/auth/signout.ts';
import { signupHandler } from './endpoints/auth/signup.ts';
import { switchAccountHandler } from './endpoints/auth/switch-account.ts';
import { createAppHandler } from './endpoints/apps/create-app.ts';
import { deleteAppHandler } from './endpoints/apps/delete-app.ts';
import { getAppHandler } from './endpoints/apps/get-app.ts';
import { listAppsHandler } from './endpoints/apps/list-apps.ts';
import { testAppCredentialsHandler } from './endpoints/apps/test-app-credentials.ts';
import { updateAppHandler } from './endpoints/apps/update-app.ts';
import { createChannelHandler } from './endpoints/channels/create-channel.ts';
import { getChannelHandler } from './endpoints/channels/get-channel.ts';
import { getJoinQrCodeHandler } from './endpoints/channels/get-join-qr-code.ts';
import { listChannelsHandler } from './endpoints/channels/list-channels.ts';
import { updateChannelHandler } from './endpoints/channels/update-channel.ts';
import { getOpenApiHandler } from './endpoints/docs/get-openapi.ts';
import { createKeyHandler } from './endpoints/keys/create-key.ts';
import { listKeysHandler } from './endpoints/keys/list-keys.ts';
import { revokeKeyHandler } from './endpoints/keys/revoke-key.ts';
import { rotateKeyHandler } from './endpoints/keys/rotate-key.ts';
import { endLiveActivityHandler } from './endpoints/live-activities/end-live-activity.ts';
import { getLiveActivityHandler } from './endpoints/live-activities/get-live-activity.ts';
import { listLiveActivitiesHandler } from './endpoints/live-activities/list-live-activities.ts';
import { reportLiveActivityTokenHandler } from './endpoints/live-activities/report-live-activity-token.ts';
import { startLiveActivityHandler } from './endpoints/live-activities/start-live-activity.ts';
import { updateLiveActivityHandler } from './endpoints/live-activities/update-live-activity.ts';
import { cancelNotificationHandler } from './endpoints/notifications/cancel-notification.ts';
import { getNotificationHandler } from './endpoints/notifications/get-notification.ts';
import { listDeliveryFailuresHandler } from './endpoints/notifications/list-delivery-failures.ts';
import { listNotificationsHandler } from './endpoints/notifications/list-notifications.ts';
import { notifyHandler, sendNotificationHandler } from './endpoints/notifications/send-notification.ts';
import { deleteSubscriberHandler } from './endpoints/subscribers/delete-subscriber.ts';
import { getSubscriberHandler } from './endpoints/subscribers/get-subscriber.ts';
import { listSubscribersHandler } from './endpoints/subscribers/list-subscribers.ts';
import { registerSubscriberHandler } from './endpoints/subscribers/register-subscriber.ts';
import { unsubscribeSubscriberHandler } from './endpoints/subscribers/unsubscribe-subscriber.ts';
import { updateSubscriberHandler } from './endpoints/subscribers/update-subscriber.ts';
import { deleteUserHandler } from './endpoints/users/delete-user.ts';
import { getUserHandler } from './endpoints/users/get-user.ts';
import { getDailyUsageHandler } from './endpoints/usage/get-daily-usage.ts';
import { getUsageHandler } from './endpoints/usage/get-usage.ts';
import { createWebhookHandler } from './endpoints/webhooks/create-webhook.ts';
import { deleteWebhookHandler } from './endpoints/webhooks/delete-webhook.ts';
import { enableWebhookHandler } from './endpoints/webhooks/enable-webhook.ts';
import { getWebhookSecretHandler } from './endpoints/webhooks/get-webhook-secret.ts';
import { getWebhookHandler } from './endpoints/webhooks/get-webhook.ts';
import { listWebhookMessagesHandler } from './endpoints/webhooks/list-webhook-messages.ts';
import { listWebhooksHandler } from './endpoints/webhooks/list-webhooks.ts';
import { retryWebhookMessageHandler } from './endpoints/webhooks/retry-webhook-message.ts';
import { rotateWebhookSecretHandler } from './endpoints/webhooks/rotate-webhook-secret.ts';
import { testWebhookHandler } from './endpoints/webhooks/test-webhook.ts';
import { getVapidPublicKeyHandler } from './endpoints/web-push/get-vapid-public-key.ts';

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Fastify's pattern: `:id` is a path parameter. */
  url: string;
  /** Whom the route takes (src/http/auth.ts): there is no default, every row says it. */
  auth: RouteAuth;
  /** From the module under src/http/endpoints/<area>/: the route's schema, hooks and handler function. */
  handler: EndpointFactory;
  /** Called from customers' web pages by the browser SDK, so it answers CORS (src/http/browser-cors.ts). */
  browser?: true;
}

/**
 * Every /api/v1 route: method, path, whom it takes, and the endpoint module that handles it, one row each.
 * `auth` is one of
 *   'secret'   a secret key (clr_sk_…) or a dashboard session;
 *   'any-key'  a publishable key (clr_pk_…) as well (docs/design.md 2.2: subscribers and Live Activity tokens);
 *   'session'  a dashboard session only, never a key (key management: a leaked key must not mint keys);
 *   'none'     anyone.
 * Outside /api/v1: /healthz and /readyz (endpoints/health/health.ts), /docs (openapi.ts) and the dashboard's files
 * (dashboard-static.ts), all public.
 */
export const routeTable: readonly Route[] = [
  { method: 'POST', url: '/api/v1/notifications', auth: 'secret', handler: sendNotificationHandler },
  { method: 'POST', url: '/api/v1/notify', auth: 'secret', handler: notifyHandler },
  { method: 'GET', url: '/api/v1/notifications/:id', auth: 'secret', handler: getNotificationHandler },
  { method: 'GET', url: '/api/v1/notifications', auth: 'secret', handler: listNotificationsHandler },
  { method: 'GET', url: '/api/v1/notifications/:id/failures', auth: 'secret', handler: listDeliveryFailuresHandler },
  { method: 'POST', url: '/api/v1/notifications/:id/cancel', auth: 'secret', handler: cancelNotificationHandler },

  { method: 'POST', url: '/api/v1/live-activities', auth: 'secret', handler: startLiveActivityHandler },
  { method: 'POST', url: '/api/v1/live-activities/:id/update', auth: 'secret', handler: updateLiveActivityHandler },
  { method: 'POST', url: '/api/v1/live-activities/:id/end', auth: 'secret', handler: endLiveActivityHandler },
  { method: 'GET', url: '/api/v1/live-activities/:id', auth: 'secret', handler: getLiveActivityHandler },
  { method: 'GET', url: '/api/v1/live-activities', auth: 'secret', handler: listLiveActivitiesHandler },
  {
    method: 'POST',
    url: '/api/v1/live-activities/:id/tokens',
    auth: 'any-key',
    handler: reportLiveActivityTokenHandler,
  },

  { method: 'POST', url: '/api/v1/subscribers', auth: 'any-key', handler: registerSubscriberHandler, browser: true },
  {
    method: 'POST',
    url: '/api/v1/subscribers/:id/unsubscribe',
    auth: 'any-key',
    handler: unsubscribeSubscriberHandler,
    browser: true,
  },
  { method: 'GET', url: '/api/v1/subscribers', auth: 'secret', handler: listSubscribersHandler },
  { method: 'GET', url: '/api/v1/subscribers/:id', auth: 'secret', handler: getSubscriberHandler },
  // A publishable key may change only the subscriber it registered, proven with its token (update-subscriber.ts).
  { method: 'PATCH', url: '/api/v1/subscribers/:id', auth: 'any-key', handler: updateSubscriberHandler },
  { method: 'DELETE', url: '/api/v1/subscribers/:id', auth: 'secret', handler: deleteSubscriberHandler },
  { method: 'GET', url: '/api/v1/users/:externalId', auth: 'secret', handler: getUserHandler },
  // Erasure (docs/api.md, "Users"): a secret key without a channel scope (users/user-params.ts).
  { method: 'DELETE', url: '/api/v1/users/:externalId', auth: 'secret', handler: deleteUserHandler },
  // The key browsers subscribe with is public: a page may fetch it with its publishable key or without one.
  { method: 'GET', url: '/api/v1/web-push/public-key', auth: 'none', handler: getVapidPublicKeyHandler, browser: true },

  // Apps (docs/apps.md): an account's own credentials; a secret key must also be unscoped (endpoints/apps/app-access.ts).
  { method: 'POST', url: '/api/v1/apps', auth: 'secret', handler: createAppHandler },
  { method: 'GET', url: '/api/v1/apps', auth: 'secret', handler: listAppsHandler },
  { method: 'GET', url: '/api/v1/apps/:id', auth: 'secret', handler: getAppHandler },
  { method: 'PATCH', url: '/api/v1/apps/:id', auth: 'secret', handler: updateAppHandler },
  { method: 'DELETE', url: '/api/v1/apps/:id', auth: 'secret', handler: deleteAppHandler },
  { method: 'POST', url: '/api/v1/apps/:id/test', auth: 'secret', handler: testAppCredentialsHandler },
  { method: 'POST', url: '/api/v1/channels', auth: 'secret', handler: createChannelHandler },
  { method: 'GET', url: '/api/v1/channels', auth: 'secret', handler: listChannelsHandler },
  { method: 'GET', url: '/api/v1/channels/:code', auth: 'secret', handler: getChannelHandler },
  { method: 'POST', url: '/api/v1/channels/:code/update', auth: 'secret', handler: updateChannelHandler },
  { method: 'GET', url: '/api/v1/channels/:code/join-qr-code', auth: 'secret', handler: getJoinQrCodeHandler },

  { method: 'GET', url: '/api/v1/usage', auth: 'secret', handler: getUsageHandler },
  { method: 'GET', url: '/api/v1/usage/daily', auth: 'secret', handler: getDailyUsageHandler },

  // Webhooks (docs/webhooks.md): a secret key must also be unscoped (endpoints/webhooks/webhook-access.ts).
  { method: 'POST', url: '/api/v1/webhooks', auth: 'secret', handler: createWebhookHandler },
  { method: 'GET', url: '/api/v1/webhooks', auth: 'secret', handler: listWebhooksHandler },
  { method: 'GET', url: '/api/v1/webhooks/:id', auth: 'secret', handler: getWebhookHandler },
  { method: 'GET', url: '/api/v1/webhooks/:id/secret', auth: 'secret', handler: getWebhookSecretHandler },
  { method: 'DELETE', url: '/api/v1/webhooks/:id', auth: 'secret', handler: deleteWebhookHandler },
  { method: 'POST', url: '/api/v1/webhooks/:id/rotate-secret', auth: 'secret', handler: rotateWebhookSecretHandler },
  { method: 'POST', url: '/api/v1/webhooks/:id/enable', auth: 'secret', handler: enableWebhookHandler },
  { method: 'POST', url: '/api/v1/webhooks/:id/test', auth: 'secret', handler: testWebhookHandler },
  { method: 'GET', url: '/api/v1/webhooks/:id/messages', auth: 'secret', handler: listWebhookMessagesHandler },
  { method: 'POST', url: '/api/v1/webhook-messages/:id/retry', auth: 'secret', handler: retryWebhookMessageHandler },

  // Dashboard (docs/dashboard.md). GET /auth/session is public on purpose: "not signed in" is an answer there
  // (session: null), not an error, and the dashboard's first request learns from it whether to offer sign-up.
  { method: 'POST', url: '/api/v1/auth/signup', auth: 'none', handler: signupHandler },
  { method: 'POST', url: '/api/v1/auth/signin', auth: 'none', handler: signinHandler },
  { method: 'POST', url: '/api/v1/auth/signout', auth: 'session', handler: signoutHandler },
  { method: 'GET', url: '/api/v1/auth/session', auth: 'none', handler: getSessionHandler },
  { method: 'POST', url: '/api/v1/auth/switch-account', auth: 'session', handler: switchAccountHandler },
  { method: 'GET', url: '/api/v1/keys', auth: 'session', handler: listKeysHandler },
  { method: 'POST', url: '/api/v1/keys', auth: 'session', handler: createKeyHandler },
  { method: 'POST', url: '/api/v1/keys/:id/revoke', auth: 'session', handler: revokeKeyHandler },
  { method: 'POST', url: '/api/v1/keys/:id/rotate', auth: 'session', handler: rotateKeyHandler },

  { method: 'GET', url: '/api/v1/openapi.json', auth: 'none', handler: getOpenApiHandler },
];

/**
 * Registers every row of the table; `auth`, and whether the endpoint confirms a cached key itself, go into the route's
 * config, where the auth hook reads them.
 */
export function registerApiRoutes(app: ClarionApp, deps: AppDependencies): void {
  for (const route of routeTable) {
    const { options, handler, confirmsCachedKey } = route.handler(deps);
    const security = openApiSecurity[route.auth];
    const schema = security && options.schema ? { ...options.schema, security } : options.schema;
    app.route({
      ...options,
      schema,
      method: route.method,
      url: route.url,
      config: { auth: route.auth, confirmsCachedKey: confirmsCachedKey === true },
      handler,
    });
  }
}

/**
 * The OpenAPI `security` of an operation follows from its row's auth, so it is written once (here) rather than again
 * in each endpoint module. Keys (and sessions) are the document's default (src/http/openapi.ts): only the routes that
 * take less, or only a session, say so.
 */
const openApiSecurity: Record<RouteAuth, Array<Record<string, string[]>> | undefined> = {
  secret: undefined,
  'any-key': undefined,
  session: [{ session: [] }],
  none: [],
};
