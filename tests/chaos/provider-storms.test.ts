import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CHAOS_IN_FLIGHT,
  SCENARIO_TIMEOUT_MS,
  SUBSCRIBERS,
  atPushes,
  expectEveryPushDelivered,
  expectEveryPushDeliveredRepeatingOnlyAtFaults,
  faultMark,
  receivedCounts,
  startChaosHarness,
  startFanOut,
  waitUntilSent,
  type ChaosHarness,
  type FaultMark,
} from './chaos-harness.ts';
import { waitFor } from '../harness/wait-for.ts';

/**
 * The providers misbehave rather than the network: storms of 503 and 429 (with Retry-After), and GOAWAY on every
 * connection, in the middle of a fan-out. An error answer means "not delivered", so a storm may not cause a single
 * repeated push. A GOAWAY names the streams the server will still answer, and the server then closes the connection:
 * an answer still on its way when it does can be lost (the fake is node:http2, whose close stops reading, so a frame
 * the client sends meanwhile resets the connection), as at a reset, and its push is sent again. So, as at a reset, a
 * push may repeat only when it was in flight at a GOAWAY.
 */
let h: ChaosHarness;
beforeEach(async () => {
  h = await startChaosHarness();
});
afterEach(async () => h?.close());

/** A storm of a tenth of the fan-out per provider and per kind. */
const STORM = Math.max(1, Math.floor(SUBSCRIBERS / 10));

describe('chaos: provider error storms and GOAWAY mid fan-out', () => {
  it(
    `delivers all ${SUBSCRIBERS} pushes through storms of 503 and 429`,
    async () => {
      const fanOut = await startFanOut(h);
      await atPushes(h.apns, h.fcm, fanOut, Math.floor(SUBSCRIBERS * 0.2), () => {
        h.apns.failNext(STORM, { reason: 'ServiceUnavailable', retryAfterSeconds: 2 });
        h.fcm.failNext(STORM, { errorCode: 'UNAVAILABLE', retryAfterSeconds: 2 });
      });
      await atPushes(h.apns, h.fcm, fanOut, Math.floor(SUBSCRIBERS * 0.5), () => {
        h.apns.failNext(STORM, { reason: 'TooManyRequests', retryAfterSeconds: 1 });
        h.fcm.failNext(STORM, { errorCode: 'QUOTA_EXCEEDED', retryAfterSeconds: 1 });
      });
      // APNs 5xx answers are retried after 15 minutes at the earliest (Apple's guidance, APNS_SERVER_ERROR_RETRY_MS in
      // src/delivery/apns/apns-response.ts). Once the first pass is over (no batch running), move the clock 30 s every
      // 200 ms so that round comes due within seconds; a batch runs for far less than its 1-hour lease at that pace.
      await waitFor(
        () => h.apns.requests.some((request) => request.injected) && h.worker.pool.activeCount === 0,
        60_000,
        'the first pass to end',
      );
      const fastForward = setInterval(() => h.clock.advance(30_000), 200);
      const final = await waitUntilSent(h, fanOut).finally(() => clearInterval(fastForward));
      expectEveryPushDelivered(final, receivedCounts(h.apns, h.fcm, fanOut), fanOut, 0);
      // Both storms were spent on this fan-out's pushes, in full.
      expect(h.apns.requests.filter((request) => request.injected)).toHaveLength(2 * STORM);
      expect(h.fcm.requests.filter((request) => request.injected)).toHaveLength(2 * STORM);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    `delivers all ${SUBSCRIBERS} pushes when both providers send GOAWAY on every connection, twice`,
    async () => {
      const fanOut = await startFanOut(h);
      let goaways = 0;
      const marks: FaultMark[] = [];
      for (const share of [0.3, 0.6]) {
        await atPushes(h.apns, h.fcm, fanOut, Math.floor(SUBSCRIBERS * share), () => {
          marks.push(faultMark(h));
          goaways += h.apns.goAway({ reason: 'Shutdown' });
          goaways += h.fcm.goAway();
        });
      }
      const final = await waitUntilSent(h, fanOut);
      expectEveryPushDeliveredRepeatingOnlyAtFaults(h, final, fanOut, marks, marks.length * 2 * CHAOS_IN_FLIGHT);
      // Connections were really sent away (a provider may have had none open at one of the two moments).
      expect(goaways).toBeGreaterThanOrEqual(2);
      expect(h.apns.sessions.length).toBeGreaterThan(1);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
