import { expect } from 'vitest';
import type { ClarionApp, RouteAuth } from '../../src/http/app-types.ts';
import { routeTable } from '../../src/http/routes.ts';
import { newId } from '../../src/domain/ids.ts';
import { progressActivity, tokens } from './sample-requests.ts';

export interface RegisteredRoute {
  method: string;
  /** As Fastify registered it, e.g. /api/v1/notifications/:id */
  url: string;
}

/**
 * Every /api/v1 route but the OpenAPI document itself (which no caller authenticates on), read from the route table
 * (src/http/routes.ts), so a new endpoint can never be missed by the tests that must cover all routes. Each is
 * checked to be registered on `app`; tests/api/docs/route-table.test.ts proves the app registers nothing else.
 */
export function registeredApiRoutes(app: ClarionApp): RegisteredRoute[] {
  const routes = routeTable
    .filter((route) => route.url !== '/api/v1/openapi.json')
    .map(({ method, url }) => ({ method, url }));
  for (const route of routes)
    expect(app.hasRoute(route), `${routeName(route)} from the route table is registered`).toBe(true);
  return routes;
}

/** Whom a route takes, as its row in the route table says. */
function authOf(method: string, url: string): RouteAuth {
  const row = routeTable.find((route) => route.method === method && route.url === url);
  if (!row) throw new Error(`${method} ${url} is not in the route table (src/http/routes.ts)`);
  return row.auth;
}

export interface RouteCase extends RegisteredRoute {
  /** Whom the route takes, from its row in the route table. */
  auth: RouteAuth;
  /** A concrete URL to call. */
  path: string;
  /** A valid body for the route (POST routes that need one, or take one). */
  body?: unknown;
  /** The body may be left out (an empty body is none): POST /subscribers/{id}/unsubscribe with a secret key. */
  bodyOptional?: boolean;
}

/**
 * A valid call for each API-key endpoint of the core API (notifications, Live Activity start, subscribers, channels,
 * usage), aimed at `channelCode` (and at `ids` for routes with an id), for tests that need a real body (bad bodies,
 * body limit, content type, Idempotency-Key). Tests that need no body (401, publishable 403, OpenAPI coverage) go
 * through every registered route instead.
 */
export function routeCases(
  channelCode: string,
  ids: { notification?: string; subscriber?: string; liveActivity?: string; iosSubscriber?: string } = {},
): RouteCase[] {
  const notification = ids.notification ?? newId('notification');
  const subscriber = ids.subscriber ?? newId('subscriber');
  const liveActivity = ids.liveActivity ?? newId('liveActivity');
  const cases: Array<Omit<RouteCase, 'auth'>> = [
    {
      method: 'POST',
      url: '/api/v1/notifications',
      path: '/api/v1/notifications',
      body: { channelCode, title: 'Hello' },
    },
    { method: 'POST', url: '/api/v1/notify', path: '/api/v1/notify', body: { channel: channelCode, title: 'Hello' } },
    { method: 'GET', url: '/api/v1/notifications', path: '/api/v1/notifications' },
    { method: 'GET', url: '/api/v1/notifications/:id', path: `/api/v1/notifications/${notification}` },
    {
      method: 'GET',
      url: '/api/v1/notifications/:id/failures',
      path: `/api/v1/notifications/${notification}/failures`,
    },
    {
      method: 'POST',
      url: '/api/v1/live-activities',
      path: '/api/v1/live-activities',
      body: progressActivity(channelCode),
    },
    {
      method: 'POST',
      url: '/api/v1/live-activities/:id/update',
      path: `/api/v1/live-activities/${liveActivity}/update`,
      body: { fields: { progress: 0.6 }, alert: { title: 'Update' } },
    },
    {
      method: 'POST',
      url: '/api/v1/live-activities/:id/end',
      path: `/api/v1/live-activities/${liveActivity}/end`,
      body: { fields: { progress: 1 }, dismissAt: new Date(Date.now() + 60_000).toISOString() },
    },
    { method: 'GET', url: '/api/v1/live-activities', path: '/api/v1/live-activities' },
    { method: 'GET', url: '/api/v1/live-activities/:id', path: `/api/v1/live-activities/${liveActivity}` },
    {
      method: 'POST',
      url: '/api/v1/live-activities/:id/tokens',
      path: `/api/v1/live-activities/${liveActivity}/tokens`,
      body: { subscriberId: ids.iosSubscriber ?? subscriber, token: tokens.ios() },
    },
    {
      method: 'POST',
      url: '/api/v1/subscribers',
      path: '/api/v1/subscribers',
      body: { channelCode, platform: 'android', token: tokens.android() },
    },
    {
      method: 'POST',
      url: '/api/v1/subscribers/:id/unsubscribe',
      path: `/api/v1/subscribers/${subscriber}/unsubscribe`,
      body: { token: tokens.android() },
      bodyOptional: true,
    },
    { method: 'GET', url: '/api/v1/subscribers', path: '/api/v1/subscribers' },
    { method: 'GET', url: '/api/v1/subscribers/:id', path: `/api/v1/subscribers/${subscriber}` },
    {
      method: 'PATCH',
      url: '/api/v1/subscribers/:id',
      path: `/api/v1/subscribers/${subscriber}`,
      body: { tags: ['beta'] },
    },
    { method: 'POST', url: '/api/v1/channels', path: '/api/v1/channels', body: { code: `${channelCode}-2` } },
    { method: 'GET', url: '/api/v1/channels', path: '/api/v1/channels' },
    { method: 'GET', url: '/api/v1/channels/:code', path: `/api/v1/channels/${channelCode}` },
    {
      method: 'POST',
      url: '/api/v1/channels/:code/update',
      path: `/api/v1/channels/${channelCode}/update`,
      body: { name: 'Updated' },
    },
    { method: 'GET', url: '/api/v1/channels/:code/join-qr-code', path: `/api/v1/channels/${channelCode}/join-qr-code` },
    { method: 'GET', url: '/api/v1/usage', path: '/api/v1/usage' },
    { method: 'GET', url: '/api/v1/usage/daily', path: '/api/v1/usage/daily' },
  ];
  return cases.map((route) => ({ ...route, auth: authOf(route.method, route.url) }));
}

/**
 * The dashboard's own routes, which no API key may call: sign-up and sign-in (public), and the session-only ones
 * (session, sign-out, account switch, key management). Key-based cross-cutting tests leave them out; the same
 * rules (401, 403, CSRF, 413, 415, bad JSON) are proven for them with a session in tests/api/auth/session-routes.test.ts.
 */
export const dashboardRoutes: RegisteredRoute[] = [
  { method: 'POST', url: '/api/v1/auth/signup' },
  { method: 'POST', url: '/api/v1/auth/signin' },
  { method: 'POST', url: '/api/v1/auth/signout' },
  { method: 'GET', url: '/api/v1/auth/session' },
  { method: 'POST', url: '/api/v1/auth/switch-account' },
  { method: 'GET', url: '/api/v1/keys' },
  { method: 'POST', url: '/api/v1/keys' },
  { method: 'POST', url: '/api/v1/keys/:id/revoke' },
  { method: 'POST', url: '/api/v1/keys/:id/rotate' },
];

/**
 * /api/v1 routes anyone may call without a key or session: the OpenAPI document, and the dashboard's sign-up,
 * sign-in and "who am I" (which answers `session: null` when signed out; docs/dashboard.md). Every other /api/v1
 * route must answer 401 to a caller without valid credentials, so a new public route has to be added here on purpose.
 */
export const PUBLIC_ROUTES = new Set([
  'GET /api/v1/openapi.json',
  'POST /api/v1/auth/signup',
  'POST /api/v1/auth/signin',
  'GET /api/v1/auth/session',
  // The VAPID public key is in every browser subscription anyway (docs/web-push.md).
  'GET /api/v1/web-push/public-key',
  // A device reports what became of a push with the push's own receipt, which is the proof (docs/engagement.md).
  'POST /api/v1/receipts',
  // GitHub cannot send a key: the relay's signature over the body is the credential, and a bad one answers 401
  // (tests/api/relays/github-actions.test.ts).
  'POST /api/v1/relays/github-actions',
]);

/**
 * Routes whose body is another service's webhook payload, of any shape until its signature is checked: their schema
 * declares no fields, and the payload is validated per event after the check (tests/api/relays/).
 */
export const FOREIGN_PAYLOAD_ROUTES = new Set(['POST /api/v1/relays/github-actions']);

/**
 * What a publishable key may do (docs/design.md 2.2): register subscribers; unsubscribe, change and report Live
 * Activity tokens for the subscriber it registered, proven with that registration's token (tests/api/subscribers/
 * unsubscribe-403.test.ts, update-403.test.ts, tests/api/live-activities/tokens-403.test.ts). Every other
 * authenticated route must answer 403 forbidden to a publishable key.
 */
export const PUBLISHABLE_ROUTES = new Set([
  'POST /api/v1/subscribers',
  'POST /api/v1/subscribers/:id/unsubscribe',
  'PATCH /api/v1/subscribers/:id',
  'POST /api/v1/live-activities/:id/tokens',
]);

export const routeName = (route: RegisteredRoute) => `${route.method} ${route.url}`;

/** A callable URL for a registered route: path parameters filled with values of the right shape. */
export function concretePath(route: RegisteredRoute, values: Record<string, string> = {}): string {
  return route.url.replace(
    /:([A-Za-z]+)/g,
    (_match, name: string) => values[name] ?? (name === 'code' ? 'news' : newId('notification')),
  );
}

/** A request with a payload sent exactly as given (no content type added): for malformed-body tests. */
export async function rawRequest(
  app: ClarionApp,
  method: string,
  url: string,
  key: string | null,
  payload: string | Buffer | undefined,
  headers: Record<string, string> = {},
) {
  const response = await app.inject({
    method: method as 'POST',
    url,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    ...(payload === undefined ? {} : { payload }),
  });
  let body: any = response.body;
  try {
    body = JSON.parse(response.body);
  } catch {
    // not JSON: keep the text
  }
  return Object.assign(response, { body });
}

/** Calls a route case with its own valid body (or `body`), as JSON. */
export async function callRoute(
  app: ClarionApp,
  route: RouteCase,
  key: string | null,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const body = 'body' in options ? options.body : route.body;
  const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
  return rawRequest(app, route.method, route.path, key, body === undefined ? undefined : JSON.stringify(body), headers);
}
