import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import {
  concretePath,
  PUBLIC_ROUTES,
  PUBLISHABLE_ROUTES,
  rawRequest,
  registeredApiRoutes,
  routeName,
} from '../../harness/api-routes.ts';
import { post } from '../../harness/requests.ts';
import { send, subscribeDevice, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('publishable keys → 403 forbidden on every route not meant for them', () => {
  it('every authenticated route outside docs/design.md 2.2’s list refuses a publishable key, and nothing changes', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const notification = await send(t.app, account.secretKey, 'news');
    const routes = registeredApiRoutes(t.app).filter(
      (route) => !PUBLIC_ROUTES.has(routeName(route)) && !PUBLISHABLE_ROUTES.has(routeName(route)),
    );
    expect(routes.length).toBeGreaterThanOrEqual(9);
    const before = await accountState(t, account.id);
    for (const route of routes) {
      const path = concretePath(route, { id: notification });
      const response = await rawRequest(
        t.app,
        route.method,
        path,
        account.publishableKey,
        route.method === 'POST' ? '{}' : undefined,
        { 'content-type': 'application/json' },
      );
      expect(response.statusCode, routeName(route)).toBe(403);
      expectError(response, 'forbidden');
    }
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('a publishable key may register subscribers, and unsubscribe one only with the token it registered', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const token = tokens.web();
    const registered = await post(t.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'news',
      platform: 'web',
      token,
    });
    expect(registered.statusCode).toBe(201);
    expect(
      (
        await post(t.app, `/api/v1/subscribers/${registered.body.data.id}/unsubscribe`, account.publishableKey, {
          token,
        })
      ).statusCode,
    ).toBe(200);
    const other = await subscribeDevice(t.app, account.secretKey, 'news');
    expectError(await post(t.app, `/api/v1/subscribers/${other.id}/unsubscribe`, account.publishableKey), 'forbidden');
    expect(
      (await post(t.app, `/api/v1/subscribers/${other.id}/unsubscribe`, account.publishableKey, { token: other.token }))
        .statusCode,
    ).toBe(200);
  });
});
