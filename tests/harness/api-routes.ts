import { expect } from 'vitest';
import type { ClarionApp } from '../../src/http/app-types.ts';
import { newId } from '../../src/domain/ids.ts';
import { progressActivity, tokens } from './sample-requests.ts';

export interface RegisteredRoute {
  method: string;
  /** As Fastify registered it, e.g. /api/v1/notifications/:id */
  url: string;
}

/**
 * Every route the app has registered under /api/v1 (HEAD routes Fastify adds for GETs left out), read from the
 * router itself so a new endpoint can never be missed by the tests that must cover all routes. Parses
 * `printRoutes`, then checks each route with `hasRoute`, so a change in the print format fails loudly instead of
 * silently listing nothing. (Routes outside /api/v1, like the docs' static wildcard, print ambiguously and are
 * left out.)
 */
export function registeredRoutes(app: ClarionApp): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    prefixes.length = depth;
    const url = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = url;
    if (!url.startsWith('/api/v1/')) continue;
    for (const method of (match[3] ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
      if (method === 'HEAD') continue;
      expect(app.hasRoute({ method, url }), `${method} ${url} parsed from printRoutes is a registered route`).toBe(true);
      routes.push({ method, url });
    }
  }
  expect(routes.length).toBeGreaterThan(0);
  return routes;
}

/** The /api/v1 routes a caller authenticates on (all but the OpenAPI document itself). */
export function registeredApiRoutes(app: ClarionApp): RegisteredRoute[] {
  return registeredRoutes(app).filter((route) => route.url !== '/api/v1/openapi.json');
}

export interface RouteCase extends RegisteredRoute {
  /** Which keys the route takes: secret only, or publishable ones too. */
  auth: 'secret' | 'any';
  /** A concrete URL to call. */
  path: string;
  /** A valid body for the route (POST routes that need one). */
  body?: unknown;
}

/**
 * A valid call for each API-key endpoint of the core API (notifications, Live Activity start, subscribers, channels,
 * usage), aimed at `channelCode` (and at `ids` for routes with an id), for tests that need a real body (bad bodies,
 * body limit, content type, Idempotency-Key). Tests that need no body (401, publishable 403, OpenAPI coverage) go
 * through every registered route instead.
 */
export function routeCases(channelCode: string, ids: { notification?: string; subscriber?: string; liveActivity?: string; iosSubscriber?: string } = {}): RouteCase[] {
  const notification = ids.notification ?? newId('notification');
  const subscriber = ids.subscriber ?? newId('subscriber');
  const liveActivity = ids.liveActivity ?? newId('liveActivity');
  return [
    { method: 'POST', url: '/api/v1/notifications', auth: 'secret', path: '/api/v1/notifications', body: { channelCode, title: 'Hello' } },
    { method: 'POST', url: '/api/v1/notify', auth: 'secret', path: '/api/v1/notify', body: { channel: channelCode, title: 'Hello' } },
    { method: 'GET', url: '/api/v1/notifications', auth: 'secret', path: '/api/v1/notifications' },
    { method: 'GET', url: '/api/v1/notifications/:id', auth: 'secret', path: `/api/v1/notifications/${notification}` },
    { method: 'GET', url: '/api/v1/notifications/:id/failures', auth: 'secret', path: `/api/v1/notifications/${notification}/failures` },
    { method: 'POST', url: '/api/v1/live-activities', auth: 'secret', path: '/api/v1/live-activities', body: progressActivity(channelCode) },
    { method: 'POST', url: '/api/v1/live-activities/:id/update', auth: 'secret', path: `/api/v1/live-activities/${liveActivity}/update`, body: { fields: { progress: 0.6 }, alert: { title: 'Update' } } },
    { method: 'POST', url: '/api/v1/live-activities/:id/end', auth: 'secret', path: `/api/v1/live-activities/${liveActivity}/end`, body: { fields: { progress: 1 }, dismissAt: new Date(Date.now() + 60_000).toISOString() } },
    { method: 'GET', url: '/api/v1/live-activities', auth: 'secret', path: '/api/v1/live-activities' },
    { method: 'GET', url: '/api/v1/live-activities/:id', auth: 'secret', path: `/api/v1/live-activities/${liveActivity}` },
    { method: 'POST', url: '/api/v1/live-activities/:id/tokens', auth: 'any', path: `/api/v1/live-activities/${liveActivity}/tokens`, body: { subscriberId: ids.iosSubscriber ?? subscriber, token: tokens.ios() } },
    { method: 'POST', url: '/api/v1/subscribers', auth: 'any', path: '/api/v1/subscribers', body: { channelCode, platform: 'android', token: tokens.android() } },
    { method: 'POST', url: '/api/v1/subscribers/:id/unsubscribe', auth: 'any', path: `/api/v1/subscribers/${subscriber}/unsubscribe` },
    { method: 'POST', url: '/api/v1/channels', auth: 'secret', path: '/api/v1/channels', body: { code: `${channelCode}-2` } },
    { method: 'GET', url: '/api/v1/channels', auth: 'secret', path: '/api/v1/channels' },
    { method: 'GET', url: '/api/v1/channels/:code', auth: 'secret', path: `/api/v1/channels/${channelCode}` },
    { method: 'GET', url: '/api/v1/usage', auth: 'secret', path: '/api/v1/usage' },
    { method: 'GET', url: '/api/v1/usage/daily', auth: 'secret', path: '/api/v1/usage/daily' },
  ];
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
]);

/**
 * What a publishable key may do (docs/design.md 2.2): register and unsubscribe subscribers, and report Live Activity
 * tokens. Every other authenticated route must answer 403 forbidden to a publishable key.
 */
export const PUBLISHABLE_ROUTES = new Set([
  'POST /api/v1/subscribers',
  'POST /api/v1/subscribers/:id/unsubscribe',
  'POST /api/v1/live-activities/:id/tokens',
]);

export const routeName = (route: RegisteredRoute) => `${route.method} ${route.url}`;

/** A callable URL for a registered route: path parameters filled with values of the right shape. */
export function concretePath(route: RegisteredRoute, values: Record<string, string> = {}): string {
  return route.url.replace(/:([A-Za-z]+)/g, (_match, name: string) => values[name] ?? (name === 'code' ? 'news' : newId('notification')));
}

/** A request with a payload sent exactly as given (no content type added): for malformed-body tests. */
export async function rawRequest(app: ClarionApp, method: string, url: string, key: string | null, payload: string | Buffer | undefined, headers: Record<string, string> = {}) {
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
export async function callRoute(app: ClarionApp, route: RouteCase, key: string | null, options: { body?: unknown; headers?: Record<string, string> } = {}) {
  const body = 'body' in options ? options.body : route.body;
  const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
  return rawRequest(app, route.method, route.path, key, body === undefined ? undefined : JSON.stringify(body), headers);
}
