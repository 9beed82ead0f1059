import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity, send, subscribe, subscribeDevice, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
let aNotification: string;
let aSubscriber: { id: string; token: string };
beforeAll(async () => {
  t = await startTestApp();
  a = await t.newAccount({ channels: ['a-only', 'shared-code'] });
  b = await t.newAccount({ channels: ['shared-code'] });
  aSubscriber = await subscribeDevice(t.app, a.publishableKey, 'a-only');
  await subscribe(t.app, a.publishableKey, 'shared-code');
  await subscribe(t.app, a.publishableKey, 'shared-code');
  aNotification = await send(t.app, a.secretKey, 'a-only');
});
afterAll(async () => t.close());

describe("account B's keys see nothing of account A", () => {
  it('by id: GET notification → not_found', async () => {
    expectError(await get(t.app, `/api/v1/notifications/${aNotification}`, b.secretKey), 'not_found');
  });

  it.each(['publishableKey', 'secretKey'] as const)(
    "by id: unsubscribe with B's %s, even with the device's token → not_found, and A's subscriber stays active",
    async (which) => {
      const before = await accountState(t, a.id);
      expectError(
        await post(t.app, `/api/v1/subscribers/${aSubscriber.id}/unsubscribe`, b[which], { token: aSubscriber.token }),
        'not_found',
      );
      expect(await accountState(t, a.id)).toEqual(before);
    },
  );

  it('by code: GET /channels/a-only → channel_not_found (B has no such channel)', async () => {
    expectError(await get(t.app, '/api/v1/channels/a-only', b.secretKey), 'channel_not_found');
  });

  it.each([
    ['send', '/api/v1/notifications', { channelCode: 'a-only', title: 'Hi' }, 'secretKey'],
    ['notify', '/api/v1/notify', { channel: 'a-only', title: 'Hi' }, 'secretKey'],
    ['start a Live Activity', '/api/v1/live-activities', progressActivity('a-only'), 'secretKey'],
    [
      'register a subscriber',
      '/api/v1/subscribers',
      { channelCode: 'a-only', platform: 'android', token: tokens.android() },
      'publishableKey',
    ],
  ] as const)(
    "by code: %s to A's channel → channel_not_found, and nothing changes for A or B",
    async (_name, url, body, which) => {
      const beforeA = await accountState(t, a.id);
      const beforeB = await accountState(t, b.id);
      expectError(await post(t.app, url, b[which], body), 'channel_not_found');
      expect(await accountState(t, a.id)).toEqual(beforeA);
      expect(await accountState(t, b.id)).toEqual(beforeB);
    },
  );

  it('filters by A’s channel code → channel_not_found', async () => {
    expectError(await get(t.app, '/api/v1/notifications?channelCode=a-only', b.secretKey), 'channel_not_found');
  });

  it('lists show nothing of A', async () => {
    expect(expectSuccess(await get(t.app, '/api/v1/notifications', b.secretKey), 200)).toEqual([]);
    const channels = expectSuccess(await get(t.app, '/api/v1/channels', b.secretKey), 200);
    expect(channels.map((channel: { code: string }) => channel.code)).toEqual(['shared-code']);
    expect(channels[0].subscriberCount.total).toBe(0);
    expect(expectSuccess(await get(t.app, '/api/v1/usage', b.secretKey), 200).used).toBe(0);
  });

  it("a channel code both accounts use reaches only the caller's own channel and subscribers", async () => {
    const sent = expectSuccess(
      await post(t.app, '/api/v1/notifications', b.secretKey, { channelCode: 'shared-code', title: 'B only' }),
      201,
    );
    expect(sent.recipientCount).toBe(0);
    expectError(await get(t.app, `/api/v1/notifications/${sent.id}`, a.secretKey), 'not_found');
    expect(expectSuccess(await get(t.app, '/api/v1/notifications?channelCode=shared-code', a.secretKey), 200)).toEqual(
      [],
    );
  });
});
