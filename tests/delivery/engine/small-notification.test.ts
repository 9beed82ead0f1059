import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPATCH_NOTIFICATION, dispatchNotificationJob, SEND_BATCH } from '../../../src/delivery/job-kinds.ts';
import { post } from '../../harness/requests.ts';
import {
  androidToken,
  finalNotification,
  iosToken,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/**
 * The small notification's path (src/delivery/dispatch-job.ts): an audience that fits in one page
 * is dispatched in one transaction, and with at most one send batch per platform its send jobs run on the worker that
 * dispatched it, leased to it from the start instead of claimed.
 */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => h?.close());

describe('a notification to a small audience', () => {
  it('is sent by the dispatching worker without a claim of its send jobs, the dispatch in one transaction', async () => {
    const account = await h.newAccount({ channels: ['small'] });
    const ios = iosToken(7_001);
    const android = androidToken(7_001);
    await registerSubscriber(h, account.publishableKey, 'small', 'ios', ios);
    await registerSubscriber(h, account.publishableKey, 'small', 'android', android);
    const claimed: string[] = [];
    const claim = h.queue.claim.bind(h.queue);
    h.queue.claim = async (input) => {
      const jobs = await claim(input);
      claimed.push(...jobs.map((job) => job.kind));
      return jobs;
    };
    try {
      const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'small',
        title: 'Hello',
      });
      expect(sent.statusCode).toBe(201);
      const id = sent.body.data.id as string;
      expect(await finalNotification(h, account.secretKey, id)).toMatchObject({
        status: 'sent',
        recipientCount: 2,
        stats: { delivered: 2, failed: 0, pending: 0 },
      });
      expect(h.apns.requests.filter((request) => request.token === ios)).toHaveLength(1);
      expect(h.fcm.requests.filter((request) => request.target?.value === android)).toHaveLength(1);

      const jobs = await h.store.db.selectFrom('jobs').selectAll().where('payload', 'like', `%${id}%`).execute();
      expect(claimed.filter((kind) => kind === SEND_BATCH)).toEqual([]);
      expect(jobs.map((job) => [job.kind, job.state, job.attempt]).sort()).toEqual([
        [DISPATCH_NOTIFICATION, 'completed', 1],
        [SEND_BATCH, 'completed', 1],
        [SEND_BATCH, 'completed', 1],
      ]);
      // Its one page committed with its completion: the cursor of a dispatch that goes on was never written.
      const dispatch = jobs.find((job) => job.kind === DISPATCH_NOTIFICATION)!;
      expect(dispatchNotificationJob.payloadOf(dispatch).cursor).toBeUndefined();
    } finally {
      h.queue.claim = claim;
    }
  });
});
