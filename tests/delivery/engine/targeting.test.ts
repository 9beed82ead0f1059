import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patch, post } from '../../harness/requests.ts';
import {
  androidToken,
  finalNotification,
  iosToken,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/** A targeted send reaches exactly its audience inside the channel, through the fakes, and not one other device. */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

interface Device {
  id: string;
  token: string;
}

/** Six devices in `channel` (and one in another channel with the same person and tags): who they belong to and their tags. */
async function population(base: number) {
  const account = await h.newAccount({ channels: ['shop', 'other'] });
  const devices: Record<string, Device> = {};
  const add = async (
    name: string,
    channel: string,
    platform: 'ios' | 'android',
    externalId: string | null,
    tags: string[],
  ) => {
    const token =
      platform === 'ios'
        ? iosToken(base + Object.keys(devices).length)
        : androidToken(base + Object.keys(devices).length);
    const id = await registerSubscriber(h, account.publishableKey, channel, platform, token);
    if (externalId !== null || tags.length > 0) {
      const response = await patch(h.app, `/api/v1/subscribers/${id}`, account.secretKey, {
        ...(externalId ? { externalId } : {}),
        tags,
      });
      expect(response.statusCode).toBe(200);
    }
    devices[name] = { id, token };
  };
  await add('alicePhone', 'shop', 'ios', 'alice', ['vip', 'beta']);
  await add('aliceTablet', 'shop', 'android', 'alice', ['vip']);
  await add('bobPhone', 'shop', 'android', 'bob', ['beta']);
  await add('carolPhone', 'shop', 'ios', 'carol', []);
  await add('anonymous', 'shop', 'android', null, ['vip', 'beta']);
  await add('aliceElsewhere', 'other', 'android', 'alice', ['vip', 'beta']);
  return { account, devices };
}

function reached(tokens: string[], since: { apns: number; fcm: number }): string[] {
  const apns = h.apns.requests
    .slice(since.apns)
    .filter((request) => request.status === 200)
    .map((request) => request.token as string);
  const fcm = h.fcm.requests
    .slice(since.fcm)
    .filter((request) => request.status === 200)
    .map((request) => request.target?.value as string);
  return [...apns, ...fcm].filter((token) => tokens.includes(token)).sort();
}

const cases: Array<[string, Record<string, unknown>, string[]]> = [
  ['externalIds', { externalIds: ['alice', 'carol', 'nobody'] }, ['alicePhone', 'aliceTablet', 'carolPhone']],
  ['subscriberIds', {}, ['bobPhone', 'anonymous']],
  ['tags all', { tags: { all: ['vip', 'beta'] } }, ['alicePhone', 'anonymous']],
  ['tags any', { tags: { any: ['beta', 'unused'] } }, ['alicePhone', 'bobPhone', 'anonymous']],
  ['tags all and any', { tags: { all: ['vip'], any: ['beta'] } }, ['alicePhone', 'anonymous']],
];

describe('targeted sends', () => {
  it.each(cases)(
    'by %s: exactly the targeted devices receive it, recipientCount counts them',
    async (_name, audience, expected) => {
      const { account, devices } = await population(9000 + cases.findIndex(([name]) => name === _name) * 10);
      const body =
        _name === 'subscriberIds'
          ? { subscriberIds: [devices.bobPhone!.id, devices.anonymous!.id, devices.aliceElsewhere!.id] }
          : audience;
      const since = { apns: h.apns.requests.length, fcm: h.fcm.requests.length };
      const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'shop',
        title: 'Just for you',
        ...body,
      });
      expect(sent.statusCode).toBe(201);
      expect(sent.body.data.recipientCount).toBe(expected.length);
      const final = await finalNotification(h, account.secretKey, sent.body.data.id);
      expect(final).toMatchObject({
        status: 'sent',
        recipientCount: expected.length,
        stats: { delivered: expected.length, failed: 0, skipped: 0, pending: 0 },
      });
      const allTokens = Object.values(devices).map((device) => device.token);
      expect(reached(allTokens, since)).toEqual(expected.map((name) => devices[name]!.token).sort());
    },
  );

  it('sends nothing to anyone when the audience matches nobody, and finishes at once', async () => {
    const { account, devices } = await population(9100);
    const since = { apns: h.apns.requests.length, fcm: h.fcm.requests.length };
    const sent = await post(h.app, '/api/v1/notify', account.secretKey, {
      channel: 'shop',
      title: 'Nobody',
      externalIds: ['nobody'],
    });
    expect(sent.body.data).toMatchObject({ recipientCount: 0, audience: { type: 'externalIds', count: 1 } });
    expect(await finalNotification(h, account.secretKey, sent.body.data.id)).toMatchObject({
      status: 'sent',
      stats: { delivered: 0, failed: 0, skipped: 0, pending: 0 },
    });
    await h.worker.pool.whenIdle();
    expect(
      reached(
        Object.values(devices).map((device) => device.token),
        since,
      ),
    ).toEqual([]);
  });
});
