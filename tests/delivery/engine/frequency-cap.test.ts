import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import {
  androidToken,
  finalNotification as waitForFinal,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/**
 * A channel's frequency cap end to end, time moved with the injected clock: a subscriber at its cap is skipped as
 * frequency_capped, a send with ignoreFrequencyCap passes and counts, a silent push is neither capped nor counted,
 * and the period rolls.
 */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

const HOUR = 3_600_000;

describe("a channel's frequency cap", () => {
  it('skips a subscriber that already got its cap in the period, lets transactional sends pass, and rolls', async () => {
    const account = await h.newAccount({ channels: ['deals'] });
    const capped = await registerSubscriber(h, account.publishableKey, 'deals', 'android', androidToken(4101));
    await registerSubscriber(h, account.publishableKey, 'deals', 'android', androidToken(4102));
    const updated = await post(h.app, '/api/v1/channels/deals/update', account.secretKey, {
      frequencyCap: { count: 2, periodSeconds: 3600 },
    });
    expect(updated.statusCode).toBe(200);
    const send = async (body: Record<string, unknown>) => {
      const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'deals', ...body });
      expect(sent.statusCode).toBe(201);
      return waitForFinal(h, account.secretKey, sent.body.data.id);
    };
    const pushesTo = (n: number) =>
      h.fcm.requests.filter((request) => request.status === 200 && request.target?.value === androidToken(n)).length;

    // Two deals reach the first subscriber, one the second.
    expect((await send({ title: 'Deal 1' })).stats).toMatchObject({ delivered: 2, skipped: 0 });
    h.clock.advance(10 * 60_000);
    expect((await send({ title: 'Deal 2', subscriberIds: [capped] })).stats).toMatchObject({ delivered: 1 });

    // The third: the first subscriber is at its cap of 2 in the hour, the second is not.
    h.clock.advance(10 * 60_000);
    const third = await send({ title: 'Deal 3' });
    expect(third).toMatchObject({
      status: 'sent',
      stats: { delivered: 1, failed: 0, skipped: 1, pending: 0 },
      failureReason: null,
    });
    expect(pushesTo(4101)).toBe(2);
    expect(pushesTo(4102)).toBe(2);
    const listed = await get(h.app, `/api/v1/notifications/${third.id}/failures`, account.secretKey);
    expect(listed.body.data).toEqual([
      {
        subscriberId: capped,
        platform: 'android',
        outcome: 'skipped',
        reason: 'frequency_capped',
        failedAt: expect.any(String),
      },
    ]);

    // A transactional send passes the cap, and counts: the second subscriber is now at 3.
    const receipt = await send({ title: 'Your order', ignoreFrequencyCap: true });
    expect(receipt).toMatchObject({ ignoreFrequencyCap: true, stats: { delivered: 2, skipped: 0 } });
    // A silent push is neither stopped nor counted.
    expect((await send({ contentAvailable: true, data: { sync: '1' } })).stats).toMatchObject({ delivered: 2 });
    expect((await send({ title: 'Deal 4' })).stats).toMatchObject({ delivered: 0, skipped: 2 });

    // An hour after Deal 1 only Deal 1 has left the period: the first subscriber still has Deal 2 and the receipt in
    // it, the second Deal 3 and the receipt.
    h.clock.advance(HOUR - 20 * 60_000 + 1000);
    expect((await send({ title: 'Deal 5' })).stats).toMatchObject({ delivered: 0, skipped: 2 });
    // Once Deal 2 and Deal 3 have left the period too, both are under the cap again.
    h.clock.advance(20 * 60_000);
    expect((await send({ title: 'Deal 6' })).stats).toMatchObject({ delivered: 2, skipped: 0 });
  });
});
