import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../../src/store/api-keys-queries.ts';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import {
  concretePath,
  PUBLIC_ROUTES,
  rawRequest,
  registeredApiRoutes,
  routeName,
  type RegisteredRoute,
} from '../../harness/api-routes.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
let account: TestAccount;
let routes: RegisteredRoute[];
/** Authorization header values that must all get 401 unauthorized, whatever is wrong with them. */
let credentials: Array<[string, string | undefined]>;

beforeAll(async () => {
  t = await startTestApp();
  account = await t.newAccount({ channels: ['news'] });
  routes = registeredApiRoutes(t.app).filter((route) => !PUBLIC_ROUTES.has(routeName(route)));
  const now = t.clock.now();
  const revoked = await account.key({ name: 'revoked' });
  await revokeApiKey(t.store.db, revoked.id, now);
  const expired = await createApiKey(t.store.db, {
    accountId: account.id,
    name: 'expired',
    kind: 'secret',
    channels: null,
    now: now - 2000,
    expiresAt: now - 1000,
  });
  credentials = [
    ['no Authorization header', undefined],
    ['an empty header', ''],
    ['another scheme', `Basic ${Buffer.from(`user:${account.secretKey}`).toString('base64')}`],
    ['the scheme without a key', 'Bearer'],
    ['a key of the wrong shape', 'Bearer clr_sk_short'],
    ['a key with another prefix', `Bearer ${account.secretKey.replace('clr_sk_', 'sk_live_')}`],
    ['an unknown key of the right shape', `Bearer clr_sk_${'A'.repeat(32)}`],
    ['two keys', `Bearer ${account.secretKey} ${account.secretKey}`],
    ['a revoked key', `Bearer ${revoked.value}`],
    ['an expired key', `Bearer ${expired.value}`],
  ];
});
afterAll(async () => t.close());

describe('every /api/v1 route but the public ones → 401 unauthorized', () => {
  it('answers 401 with WWW-Authenticate: Bearer to every bad credential, before reading the body, and changes nothing', async () => {
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const before = await accountState(t, account.id);
    for (const route of routes) {
      for (const [label, authorization] of credentials) {
        // The body is broken on purpose: authentication comes first, so a caller without a key learns nothing more.
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          ...(authorization === undefined ? {} : { authorization }),
        };
        const response = await rawRequest(
          t.app,
          route.method,
          concretePath(route),
          null,
          route.method === 'POST' ? '{"broken' : undefined,
          headers,
        );
        expect(response.statusCode, `${routeName(route)} with ${label}`).toBe(401);
        expectError(response, 'unauthorized');
      }
    }
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('says what is wrong with the header, always showing the expected form, and the same for every key it does not know', async () => {
    const messageFor = async (authorization: string | undefined) => {
      const response = await rawRequest(
        t.app,
        'GET',
        '/api/v1/usage',
        null,
        undefined,
        authorization === undefined ? {} : { authorization },
      );
      return expectError(response, 'unauthorized').message as string;
    };
    const byLabel = new Map<string, string>();
    for (const [label, authorization] of credentials) byLabel.set(label, await messageFor(authorization));
    const groups = {
      missing: ['no Authorization header', 'an empty header'],
      scheme: ['another scheme'],
      malformed: ['the scheme without a key', 'a key of the wrong shape', 'a key with another prefix', 'two keys'],
      // Unknown, revoked and expired must read the same to the byte: the message says nothing about stored keys.
      invalid: ['an unknown key of the right shape', 'a revoked key', 'an expired key'],
    };
    const messageOf = Object.fromEntries(
      Object.entries(groups).map(([group, labels]) => {
        const messages = new Set(labels.map((label) => byLabel.get(label)));
        expect(messages.size, `${group}: ${[...messages].join(' | ')}`).toBe(1);
        return [group, [...messages][0]!];
      }),
    );
    expect(new Set(Object.values(messageOf)).size).toBe(4);
    for (const message of Object.values(messageOf)) expect(message).toContain('Authorization: Bearer clr_sk_…');
    expect(messageOf.missing).toMatch(/^This request needs an API key/);
    expect(messageOf.scheme).toMatch(/Bearer scheme/);
    expect(messageOf.malformed).toMatch(/clr_sk_ or clr_pk_ followed by 32 characters/);
    expect(messageOf.invalid).toMatch(/unknown, revoked or expired/);
    // Nothing of the presented key comes back.
    for (const [label, authorization] of credentials) {
      const key = authorization?.split(' ').at(-1);
      if (key && key.length > 8) expect(byLabel.get(label), label).not.toContain(key);
    }
  });

  it('accepts the scheme in any letter case and extra spaces around the key', async () => {
    for (const authorization of [`bearer ${account.secretKey}`, `BEARER   ${account.secretKey} `]) {
      expect((await rawRequest(t.app, 'GET', '/api/v1/usage', null, undefined, { authorization })).statusCode).toBe(
        200,
      );
    }
  });

  it('serves the OpenAPI document without a key', async () => {
    expect((await rawRequest(t.app, 'GET', '/api/v1/openapi.json', null, undefined)).statusCode).toBe(200);
  });
});
