import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../src/http/error-catalog.ts';
import { expectError } from '../../harness/api-expect.ts';
import { rawRequest, registeredApiRoutes, routeCases, routeName } from '../../harness/api-routes.ts';
import { signUp, type DashboardSession } from '../../harness/dashboard-session.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
let account: TestAccount;
let user: DashboardSession;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.newAccount({ channels: ['news'] });
  user = await signUp(t);
});
afterAll(async () => t.close());

/**
 * Ids no database should ever see: NUL (PostgreSQL refuses it in text, "invalid byte sequence for encoding UTF8: 0x00",
 * which used to surface as a 500), an id of the right prefix with NUL inside, other control characters, an unpaired
 * surrogate's UTF-8 bytes, SQL and path tricks, and a well-formed id of another kind.
 */
const NOT_UTF8 = '%ED%A0%80';
const ODD_IDS = [
  '%00',
  'key_%00',
  'ntf_01h%000000000000000000000',
  '%01%02',
  '%0A',
  NOT_UTF8,
  "x'%20OR%20'1'='1",
  '..%2F..%2Fetc',
  'null',
  'acc_01h00000000000000000000000',
];

/** A body each POST (and PATCH) route accepts, so the request reaches the lookup instead of stopping at validation. */
const bodies = new Map(routeCases('news').map((route) => [route.url, route.body]));

describe('odd ids on every route with a path parameter → 404 (or 400), never 500', () => {
  it.each(['a dashboard session', 'a secret key'])(
    'as %s: every {id} route answers odd ids in the envelope',
    async (who) => {
      const routes = registeredApiRoutes(t.app).filter((route) => route.url.includes(':'));
      // The dashboard's key routes are among them: they take a session, which reaches the store lookups by id.
      expect(routes.map(routeName)).toEqual(
        expect.arrayContaining(['POST /api/v1/keys/:id/revoke', 'POST /api/v1/keys/:id/rotate']),
      );
      for (const route of routes) {
        for (const id of ODD_IDS) {
          const url = route.url.replace(/:[a-z]+/i, id);
          const body =
            route.method === 'POST' || route.method === 'PATCH'
              ? JSON.stringify(bodies.get(route.url) ?? {})
              : undefined;
          const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
          const response =
            who === 'a secret key'
              ? await rawRequest(t.app, route.method, url, account.secretKey, body, headers)
              : await rawRequest(t.app, route.method, url, null, body, {
                  ...headers,
                  cookie: user.cookie,
                  'x-csrf-token': user.csrfToken,
                });
          expect(response.statusCode, `${route.method} ${url}: ${JSON.stringify(response.body)}`).toBeLessThan(500);
          expectError(response, expectedCode(route.url, id, who, response.body));
        }
      }
    },
  );
});

/**
 * not_found, except: API keys may not call the key routes at all (403); a URL that is not valid UTF-8 is refused
 * before routing (400 bad_request); a stream route answers 400 (its key's pattern, or its body); and a channel code is checked by the route's schema (400 naming `code`), or is not found as a channel.
 */
function expectedCode(url: string, id: string, who: string, body: any): ErrorCode {
  if (id === NOT_UTF8) return 'bad_request';
  if (url.startsWith('/api/v1/keys/') && who === 'a secret key') return 'forbidden';
  // A stream key is the caller's name, not an id: an odd one is refused by the route's pattern, a plain one (`null`)
  // reaches the body, which here is empty.
  if (url.startsWith('/api/v1/live-activities/streams/:key')) return 'validation_failed';
  const channelRoute = url.startsWith('/api/v1/channels/:code');
  if (channelRoute && body.error?.code === 'validation_failed') {
    expect(body.error.details.fields.map((problem: { field: string }) => problem.field)).toEqual(['code']);
    return 'validation_failed';
  }
  return channelRoute ? 'channel_not_found' : 'not_found';
}
