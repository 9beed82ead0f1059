import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import {
  androidToken,
  finalNotification,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/** `lastDeliveredAt` on a subscriber: set by the batch that delivered to it, left alone by one that did not. */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

describe('last delivered', () => {
  it('records when a push to the subscriber was delivered, and not for a push that failed', async () => {
    const account = await h.newAccount({ channels: ['lastseen'] });
    const delivered = await registerSubscriber(h, account.publishableKey, 'lastseen', 'android', androidToken(8101));
    const failing = androidToken(8102);
    const failed = await registerSubscriber(h, account.publishableKey, 'lastseen', 'android', failing);
    h.fcm.setTokenOutcome(failing, { errorCode: 'INVALID_ARGUMENT' });
    const before = await get(h.app, `/api/v1/subscribers/${delivered}`, account.secretKey);
    expect(before.body.data.lastDeliveredAt).toBeNull();

    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'lastseen',
      title: 'Hi',
    });
    const final = await finalNotification(h, account.secretKey, sent.body.data.id);
    expect(final).toMatchObject({ stats: { delivered: 1, failed: 1 } });

    const at = new Date(h.clock.now()).toISOString();
    expect((await get(h.app, `/api/v1/subscribers/${delivered}`, account.secretKey)).body.data.lastDeliveredAt).toBe(
      at,
    );
    expect((await get(h.app, `/api/v1/subscribers/${failed}`, account.secretKey)).body.data.lastDeliveredAt).toBeNull();
    const listed = (await get(h.app, '/api/v1/subscribers?channelCode=lastseen', account.secretKey)).body.data;
    expect(Object.fromEntries(listed.map((row: any) => [row.id, row.lastDeliveredAt]))).toEqual({
      [delivered]: at,
      [failed]: null,
    });
  });
});
