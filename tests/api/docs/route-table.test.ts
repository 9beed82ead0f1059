import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClarionApp, RouteAuth } from '../../../src/http/app-types.ts';
import { registerAuth } from '../../../src/http/auth.ts';
import { routeTable } from '../../../src/http/routes.ts';
import { PUBLIC_ROUTES, PUBLISHABLE_ROUTES, routeName } from '../../harness/api-routes.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { ClarionMetrics } from '../../../src/metrics/clarion-metrics.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/**
 * Every route the router holds under /api/v1 (HEAD routes Fastify adds for GETs left out), read from `printRoutes`,
 * each checked with `hasRoute` so a change in the print format fails loudly instead of silently listing nothing.
 */
function routerRoutes(app: ClarionApp): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    prefixes.length = depth;
    const url = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = url;
    if (!url.startsWith('/api/v1/')) continue;
    for (const method of (match[3] ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      if (method === 'HEAD') continue;
      expect(app.hasRoute({ method, url }), `${method} ${url} parsed from printRoutes is a registered route`).toBe(
        true,
      );
      routes.push(`${method} ${url}`);
    }
  }
  expect(routes.length).toBeGreaterThan(0);
  return routes;
}

const AUTHS: RouteAuth[] = ['secret', 'any-key', 'session', 'optional-key', 'none'];

describe('the route table (src/http/routes.ts)', () => {
  it('states on every row a method, a /api/v1 path and whom the route takes, each route once', () => {
    for (const route of routeTable) {
      expect(['GET', 'POST', 'PATCH', 'DELETE'], routeName(route)).toContain(route.method);
      expect(route.url, routeName(route)).toMatch(/^\/api\/v1\//);
      expect(AUTHS, routeName(route)).toContain(route.auth);
      expect(typeof route.endpoint, routeName(route)).toBe('function');
    }
    const names = routeTable.map(routeName);
    expect(new Set(names).size).toBe(names.length);
  });

  it('is exactly what the app registers under /api/v1', () => {
    expect(routerRoutes(t.app).sort()).toEqual(routeTable.map(routeName).sort());
  });

  it('agrees with the deliberate lists of public and publishable routes the 401 and 403 tests use', () => {
    expect(
      new Set(routeTable.filter((route) => route.auth === 'none' || route.auth === 'optional-key').map(routeName)),
    ).toEqual(PUBLIC_ROUTES);
    expect(new Set(routeTable.filter((route) => route.auth === 'any-key').map(routeName))).toEqual(PUBLISHABLE_ROUTES);
  });

  it('matches what the OpenAPI document says each route takes', async () => {
    const spec = (await get(t.app, '/api/v1/openapi.json', null)).body;
    const expected: Record<RouteAuth, unknown> = {
      none: [],
      session: [{ session: [] }],
      secret: undefined,
      'any-key': undefined,
      'optional-key': [{}, { apiKey: [] }, { session: [] }],
    };
    for (const route of routeTable.filter((row) => row.url !== '/api/v1/openapi.json')) {
      const operation = spec.paths[route.url.replace(/:([A-Za-z]+)/g, '{$1}')][route.method.toLowerCase()];
      // Key routes inherit the document's default: an API key or a dashboard session.
      expect(operation.security, routeName(route)).toEqual(expected[route.auth]);
    }
  });

  it('leaves no /api/v1 route to a default: registering one without an auth fails', async () => {
    const app = Fastify() as unknown as ClarionApp;
    registerAuth(app, {
      config: t.config,
      clock: t.clock,
      store: t.store,
      queue: t.queue,
      secretKey: t.secretKey,
      metrics: new ClarionMetrics(),
      providerClients: { apnsClient: () => null, fcmClient: () => null },
    });
    app.get('/healthz-like', async () => ({}));
    await expect(async () => {
      app.get('/api/v1/unstated', async () => ({}));
      await app.ready();
    }).rejects.toThrow('GET /api/v1/unstated does not say whom it takes');
    await app.close();
  });
});
