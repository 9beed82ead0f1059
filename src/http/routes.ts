import type { AppDependencies, ClarionApp, RouteAuth } from './app-types.ts';
import type { EndpointFactory } from './endpoint.ts';
import { getSessionEndpoint } from './endpoints/auth/get-session.ts';
import { signinEndpoint } from './endpoints/auth/signin.ts';
import { signoutEndpoint } from './endpoints/auth/signout.ts';
import { signupEndpoint } from './endpoints/auth/signup.ts';
import { switchAccountEndpoint } from './endpoints/auth/switch-account.ts';
import { createAppEndpoint } from './endpoints/apps/create-app.ts';
import { deleteAppEndpoint } from './endpoints/apps/delete-app.ts';
import { getAppEndpoint } from './endpoints/apps/get-app.ts';
import { listAppsEndpoint } from './endpoints/apps/list-apps.ts';
import { testAppCredentialsEndpoint } from './endpoints/apps/test-app-credentials.ts';
import { updateAppEndpoint } from './endpoints/apps/update-app.ts';
import { createChannelEndpoint } from './endpoints/channels/create-channel.ts';
import { getChannelEngagementEndpoint } from './endpoints/channels/channel-engagement.ts';
import { getChannelEndpoint } from './endpoints/channels/get-channel.ts';
import { getJoinQrCodeEndpoint } from './endpoints/channels/get-join-qr-code.ts';
import { listChannelsEndpoint } from './endpoints/channels/list-channels.ts';
import { updateChannelEndpoint } from './endpoints/channels/update-channel.ts';
import { recordReceiptsEndpoint } from './endpoints/receipts/record-receipts.ts';
import { getOpenApiEndpoint } from './endpoints/docs/get-openapi.ts';
import { createKeyEndpoint } from './endpoints/keys/create-key.ts';
import { listKeysEndpoint } from './endpoints/keys/list-keys.ts';
import { revokeKeyEndpoint } from './endpoints/keys/revoke-key.ts';
import { rotateKeyEndpoint } from './endpoints/keys/rotate-key.ts';
import { cancelLiveActivityEndpoint } from './endpoints/live-activities/cancel-live-activity.ts';
import { endLiveActivityEndpoint } from './endpoints/live-activities/end-live-activity.ts';
import { getLiveActivityEndpoint } from './endpoints/live-activities/get-live-activity.ts';
import { listLiveActivitiesEndpoint } from './endpoints/live-activities/list-live-activities.ts';
import { listLiveActivityFailuresEndpoint } from './endpoints/live-activities/list-live-activity-failures.ts';
import { reportLiveActivityTokenEndpoint } from './endpoints/live-activities/report-live-activity-token.ts';
import { startLiveActivityEndpoint } from './endpoints/live-activities/start-live-activity.ts';
import {
  endStreamLiveActivityEndpoint,
  streamLiveActivityEndpoint,
} from './endpoints/live-activities/stream-live-activity.ts';
import { updateLiveActivityEndpoint } from './endpoints/live-activities/update-live-activity.ts';
import { cancelNotificationEndpoint } from './endpoints/notifications/cancel-notification.ts';
import { getNotificationEndpoint } from './endpoints/notifications/get-notification.ts';
import { listDeliveryFailuresEndpoint } from './endpoints/notifications/list-delivery-failures.ts';
import { listNotificationsEndpoint } from './endpoints/notifications/list-notifications.ts';
import { notifyEndpoint, sendNotificationEndpoint } from './endpoints/notifications/send-notification.ts';
import { reloadWidgetsEndpoint } from './endpoints/widgets/reload-widgets.ts';
import { deleteSubscriberEndpoint } from './endpoints/subscribers/delete-subscriber.ts';
import { getSubscriberEndpoint } from './endpoints/subscribers/get-subscriber.ts';
import { listSubscribersEndpoint } from './endpoints/subscribers/list-subscribers.ts';
import { registerSubscriberEndpoint } from './endpoints/subscribers/register-subscriber.ts';
import { unsubscribeSubscriberEndpoint } from './endpoints/subscribers/unsubscribe-subscriber.ts';
import { updateSubscriberEndpoint } from './endpoints/subscribers/update-subscriber.ts';
import { deleteUserEndpoint } from './endpoints/users/delete-user.ts';
import { getUserEndpoint } from './endpoints/users/get-user.ts';
import { getDailyUsageEndpoint } from './endpoints/usage/get-daily-usage.ts';
import { getUsageEndpoint } from './endpoints/usage/get-usage.ts';
import { createWebhookEndpoint } from './endpoints/webhooks/create-webhook.ts';
import { deleteWebhookEndpoint } from './endpoints/webhooks/delete-webhook.ts';
import { enableWebhookEndpoint } from './endpoints/webhooks/enable-webhook.ts';
import { alertmanagerRelayEndpoint } from './endpoints/relays/alertmanager-relay.ts';
import { createRelayEndpoint } from './endpoints/relays/create-relay.ts';
import { deleteRelayEndpoint } from './endpoints/relays/delete-relay.ts';
import { githubActionsRelayEndpoint } from './endpoints/relays/github-actions-relay.ts';
import { listRelaysEndpoint } from './endpoints/relays/list-relays.ts';
import { getWebhookSecretEndpoint } from './endpoints/webhooks/get-webhook-secret.ts';
import { getWebhookEndpoint } from './endpoints/webhooks/get-webhook.ts';
import { listWebhookMessagesEndpoint } from './endpoints/webhooks/list-webhook-messages.ts';
import { listWebhooksEndpoint } from './endpoints/webhooks/list-webhooks.ts';
import { retryWebhookMessageEndpoint } from './endpoints/webhooks/retry-webhook-message.ts';
import { rotateWebhookSecretEndpoint } from './endpoints/webhooks/rotate-webhook-secret.ts';
import { testWebhookEndpoint } from './endpoints/webhooks/test-webhook.ts';
import { getVapidPublicKeyEndpoint } from './endpoints/web-push/get-vapid-public-key.ts';

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Fastify's pattern: `:id` is a path parameter. */
  url: string;
  /** Whom the route takes (src/http/auth.ts): there is no default, every row says it. */
  auth: RouteAuth;
  /** From the module under src/http/endpoints/<area>/: builds the route's schema, hooks and handler function. */
  endpoint: EndpointFactory;
  /** Called from customers' web pages by the browser SDK, so it answers CORS (src/http/browser-cors.ts). */
  browser?: true;
}

/**
 * Every /api/v1 route: method, path, whom it takes, and the endpoint module that handles it, one row each.
 * `auth` is one of
 *   'secret'   a secret key (clr_sk_…) or a dashboard session;
 *   'any-key'  a publishable key (clr_pk_…) as well (docs/design.md 2.2: subscribers and Live Activity tokens);
 *   'session'  a dashboard session only, never a key (key management: a leaked key must not mint keys);
 *   'optional-key'  anyone; a key or session presented must be valid (401 otherwise) and names the account;
 *   'none'     anyone.
 * Outside /api/v1: /healthz and /readyz (endpoints/health/health.ts), /docs (openapi.ts) and the dashboard's files
 * (dashboard-static.ts), all public.
 */
export const routeTable: readonly Route[] = [
  { method: 'POST', url: '/api/v1/notifications', auth: 'secret', endpoint: sendNotificationEndpoint },
  { method: 'POST', url: '/api/v1/notify', auth: 'secret', endpoint: notifyEndpoint },
  { method: 'GET', url: '/api/v1/notifications/:id', auth: 'secret', endpoint: getNotificationEndpoint },
  { method: 'GET', url: '/api/v1/notifications', auth: 'secret', endpoint: listNotificationsEndpoint },
  { method: 'GET', url: '/api/v1/notifications/:id/failures', auth: 'secret', endpoint: listDeliveryFailuresEndpoint },
  { method: 'POST', url: '/api/v1/notifications/:id/cancel', auth: 'secret', endpoint: cancelNotificationEndpoint },

  { method: 'POST', url: '/api/v1/widgets/reload', auth: 'secret', endpoint: reloadWidgetsEndpoint },

  { method: 'POST', url: '/api/v1/live-activities', auth: 'secret', endpoint: startLiveActivityEndpoint },
  {
    method: 'POST',
    url: '/api/v1/live-activities/streams/:key',
    auth: 'secret',
    endpoint: streamLiveActivityEndpoint,
  },
  {
    method: 'POST',
    url: '/api/v1/live-activities/streams/:key/end',
    auth: 'secret',
    endpoint: endStreamLiveActivityEndpoint,
  },
  { method: 'POST', url: '/api/v1/live-activities/:id/update', auth: 'secret', endpoint: updateLiveActivityEndpoint },
  { method: 'POST', url: '/api/v1/live-activities/:id/end', auth: 'secret', endpoint: endLiveActivityEndpoint },
  { method: 'POST', url: '/api/v1/live-activities/:id/cancel', auth: 'secret', endpoint: cancelLiveActivityEndpoint },
  { method: 'GET', url: '/api/v1/live-activities/:id', auth: 'secret', endpoint: getLiveActivityEndpoint },
  {
    method: 'GET',
    url: '/api/v1/live-activities/:id/failures',
    auth: 'secret',
    endpoint: listLiveActivityFailuresEndpoint,
  },
  { method: 'GET', url: '/api/v1/live-activities', auth: 'secret', endpoint: listLiveActivitiesEndpoint },
  {
    method: 'POST',
    url: '/api/v1/live-activities/:id/tokens',
    auth: 'any-key',
    endpoint: reportLiveActivityTokenEndpoint,
  },

  { method: 'POST', url: '/api/v1/relays', auth: 'secret', endpoint: createRelayEndpoint },
  { method: 'GET', url: '/api/v1/relays', auth: 'secret', endpoint: listRelaysEndpoint },
  { method: 'DELETE', url: '/api/v1/relays/:id', auth: 'secret', endpoint: deleteRelayEndpoint },
  { method: 'POST', url: '/api/v1/relays/alertmanager', auth: 'secret', endpoint: alertmanagerRelayEndpoint },
  // GitHub cannot send a key: the relay's signature over the body is the credential (github-actions-relay.ts).
  { method: 'POST', url: '/api/v1/relays/github-actions', auth: 'none', endpoint: githubActionsRelayEndpoint },
  { method: 'POST', url: '/api/v1/subscribers', auth: 'any-key', endpoint: registerSubscriberEndpoint, browser: true },
  {
    method: 'POST',
    url: '/api/v1/subscribers/:id/unsubscribe',
    auth: 'any-key',
    endpoint: unsubscribeSubscriberEndpoint,
    browser: true,
  },
  { method: 'GET', url: '/api/v1/subscribers', auth: 'secret', endpoint: listSubscribersEndpoint },
  { method: 'GET', url: '/api/v1/subscribers/:id', auth: 'secret', endpoint: getSubscriberEndpoint },
  // A publishable key may change only the subscriber it registered, proven with its token (update-subscriber.ts).
  { method: 'PATCH', url: '/api/v1/subscribers/:id', auth: 'any-key', endpoint: updateSubscriberEndpoint },
  { method: 'DELETE', url: '/api/v1/subscribers/:id', auth: 'secret', endpoint: deleteSubscriberEndpoint },
  { method: 'GET', url: '/api/v1/users/:externalId', auth: 'secret', endpoint: getUserEndpoint },
  // Erasure (docs/api.md, "Users"): a secret key without a channel scope (users/user-params.ts).
  { method: 'DELETE', url: '/api/v1/users/:externalId', auth: 'secret', endpoint: deleteUserEndpoint },
  // The key browsers subscribe with is public: a page may fetch it with its publishable key or without one; the key
  // names the account whose channel `channelCode` is (its app's VAPID key).
  {
    method: 'GET',
    url: '/api/v1/web-push/public-key',
    auth: 'optional-key',
    endpoint: getVapidPublicKeyEndpoint,
    browser: true,
  },

  // Apps (docs/apps.md): an account's own credentials; a secret key must also be unscoped (endpoints/apps/app-access.ts).
  { method: 'POST', url: '/api/v1/apps', auth: 'secret', endpoint: createAppEndpoint },
  { method: 'GET', url: '/api/v1/apps', auth: 'secret', endpoint: listAppsEndpoint },
  { method: 'GET', url: '/api/v1/apps/:id', auth: 'secret', endpoint: getAppEndpoint },
  { method: 'PATCH', url: '/api/v1/apps/:id', auth: 'secret', endpoint: updateAppEndpoint },
  { method: 'DELETE', url: '/api/v1/apps/:id', auth: 'secret', endpoint: deleteAppEndpoint },
  { method: 'POST', url: '/api/v1/apps/:id/test', auth: 'secret', endpoint: testAppCredentialsEndpoint },
  { method: 'POST', url: '/api/v1/channels', auth: 'secret', endpoint: createChannelEndpoint },
  { method: 'GET', url: '/api/v1/channels', auth: 'secret', endpoint: listChannelsEndpoint },
  { method: 'GET', url: '/api/v1/channels/:code', auth: 'secret', endpoint: getChannelEndpoint },
  { method: 'POST', url: '/api/v1/channels/:code/update', auth: 'secret', endpoint: updateChannelEndpoint },
  { method: 'GET', url: '/api/v1/channels/:code/join-qr-code', auth: 'secret', endpoint: getJoinQrCodeEndpoint },
  { method: 'GET', url: '/api/v1/channels/:code/engagement', auth: 'secret', endpoint: getChannelEngagementEndpoint },

  { method: 'GET', url: '/api/v1/usage', auth: 'secret', endpoint: getUsageEndpoint },
  { method: 'GET', url: '/api/v1/usage/daily', auth: 'secret', endpoint: getDailyUsageEndpoint },

  // Webhooks (docs/webhooks.md): a secret key must also be unscoped (endpoints/webhooks/webhook-access.ts).
  { method: 'POST', url: '/api/v1/webhooks', auth: 'secret', endpoint: createWebhookEndpoint },
  { method: 'GET', url: '/api/v1/webhooks', auth: 'secret', endpoint: listWebhooksEndpoint },
  { method: 'GET', url: '/api/v1/webhooks/:id', auth: 'secret', endpoint: getWebhookEndpoint },
  { method: 'GET', url: '/api/v1/webhooks/:id/secret', auth: 'secret', endpoint: getWebhookSecretEndpoint },
  { method: 'DELETE', url: '/api/v1/webhooks/:id', auth: 'secret', endpoint: deleteWebhookEndpoint },
  { method: 'POST', url: '/api/v1/webhooks/:id/rotate-secret', auth: 'secret', endpoint: rotateWebhookSecretEndpoint },
  { method: 'POST', url: '/api/v1/webhooks/:id/enable', auth: 'secret', endpoint: enableWebhookEndpoint },
  { method: 'POST', url: '/api/v1/webhooks/:id/test', auth: 'secret', endpoint: testWebhookEndpoint },
  { method: 'GET', url: '/api/v1/webhooks/:id/messages', auth: 'secret', endpoint: listWebhookMessagesEndpoint },
  { method: 'POST', url: '/api/v1/webhook-messages/:id/retry', auth: 'secret', endpoint: retryWebhookMessageEndpoint },

  // Dashboard (docs/dashboard.md). GET /auth/session is public on purpose: "not signed in" is an answer there
  // (session: null), not an error, and the dashboard's first request learns from it whether to offer sign-up.
  { method: 'POST', url: '/api/v1/auth/signup', auth: 'none', endpoint: signupEndpoint },
  { method: 'POST', url: '/api/v1/auth/signin', auth: 'none', endpoint: signinEndpoint },
  { method: 'POST', url: '/api/v1/auth/signout', auth: 'session', endpoint: signoutEndpoint },
  { method: 'GET', url: '/api/v1/auth/session', auth: 'none', endpoint: getSessionEndpoint },
  { method: 'POST', url: '/api/v1/auth/switch-account', auth: 'session', endpoint: switchAccountEndpoint },
  { method: 'GET', url: '/api/v1/keys', auth: 'session', endpoint: listKeysEndpoint },
  { method: 'POST', url: '/api/v1/keys', auth: 'session', endpoint: createKeyEndpoint },
  { method: 'POST', url: '/api/v1/keys/:id/revoke', auth: 'session', endpoint: revokeKeyEndpoint },
  { method: 'POST', url: '/api/v1/keys/:id/rotate', auth: 'session', endpoint: rotateKeyEndpoint },

  { method: 'GET', url: '/api/v1/openapi.json', auth: 'none', endpoint: getOpenApiEndpoint },

  // Engagement (docs/engagement.md): the push's receipt is the proof, no key; called from apps and service workers.
  { method: 'POST', url: '/api/v1/receipts', auth: 'none', endpoint: recordReceiptsEndpoint, browser: true },
];

/**
 * Registers every row of the table; `auth`, and whether the endpoint confirms a cached key itself, go into the route's
 * config, where the auth hook reads them.
 */
export function registerApiRoutes(app: ClarionApp, deps: AppDependencies): void {
  for (const route of routeTable) {
    const { options, handler, confirmsCachedKey, keepsRawBody } = route.endpoint(deps);
    const security = openApiSecurity[route.auth];
    const schema = security && options.schema ? { ...options.schema, security } : options.schema;
    app.route({
      ...options,
      schema,
      method: route.method,
      url: route.url,
      config: { auth: route.auth, confirmsCachedKey: confirmsCachedKey === true, keepsRawBody: keepsRawBody === true },
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
  'optional-key': [{}, { apiKey: [] }, { session: [] }],
  none: [],
};
