import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, patch, post } from '../../harness/requests.ts';
import { subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('PATCH /api/v1/subscribers/:id → 200', () => {
  it('changes externalId, tags, timezone and locale with a secret key; left-out fields stay', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news', 'android', { locale: 'de-DE' });
    t.clock.advance(1000);
    const data = expectSuccess(
      await patch(t.app, `/api/v1/subscribers/${id}`, account.secretKey, {
        externalId: 'alice',
        tags: ['vip', 'beta', 'vip'],
        timezone: 'Europe/Paris',
      }),
      200,
    );
    expect(data).toMatchObject({
      id,
      externalId: 'alice',
      tags: ['beta', 'vip'],
      timezone: 'Europe/Paris',
      locale: 'de-DE',
      updatedAt: new Date(t.clock.now()).toISOString(),
    });
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200)).toEqual({
      ...data,
      recentFailures: [],
    });
    const cleared = expectSuccess(
      await patch(t.app, `/api/v1/subscribers/${id}`, account.secretKey, { externalId: null, tags: [], locale: null }),
      200,
    );
    expect(cleared).toMatchObject({ externalId: null, tags: [], locale: null, timezone: 'Europe/Paris' });
  });

  it.each(['ios', 'android', 'web'] as const)(
    'lets a publishable key change the %s subscriber it registered, proven with its token',
    async (platform) => {
      const account = await t.newAccount({ channels: ['news'] });
      const token = tokens[platform]();
      const id = expectSuccess(
        await post(t.app, '/api/v1/subscribers', account.publishableKey, { channelCode: 'news', platform, token }),
        201,
      ).id;
      const data = expectSuccess(
        await patch(t.app, `/api/v1/subscribers/${id}`, account.publishableKey, {
          token,
          externalId: 'alice',
          tags: ['app'],
        }),
        200,
      );
      expect(data).toMatchObject({ id, externalId: 'alice', tags: ['app'] });
    },
  );

  it('works with a key scoped to the channel', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news');
    const scoped = await account.key({ channels: ['news'] });
    expect(
      expectSuccess(await patch(t.app, `/api/v1/subscribers/${id}`, scoped.value, { tags: ['x'] }), 200).tags,
    ).toEqual(['x']);
  });
});
