import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CHAOS_IN_FLIGHT,
  SCENARIO_TIMEOUT_MS,
  SHORT_REQUEST_TIMEOUT_MS,
  SUBSCRIBERS,
  atPushes,
  expectEveryPushDeliveredRepeatingOnlyAtFaults,
  faultMark,
  startChaosHarness,
  startFanOut,
  waitUntilSent,
  type ChaosHarness,
  type FaultMark,
} from './chaos-harness.ts';

/**
 * Connections reset or black-holed in the middle of a fan-out: a destroyed session leaves the pool at once (with FCM's
 * single session, one that stayed would keep Android from every later push). Every push is delivered within a bounded
 * time after the last fault, the stats are exact, and a push is repeated only when its first copy was in flight at a
 * fault (answered by the fake, but the answer lost with the connection).
 */
let h: ChaosHarness;
beforeEach(async () => {
  h = await startChaosHarness({ requestTimeoutMs: SHORT_REQUEST_TIMEOUT_MS });
});
afterEach(async () => h?.close());

describe('chaos: connection faults mid fan-out', () => {
  it(
    `delivers all ${SUBSCRIBERS} pushes when every connection is reset three times`,
    async () => {
      const fanOut = await startFanOut(h);
      const marks: FaultMark[] = [];
      for (const share of [0.2, 0.45, 0.7]) {
        await atPushes(h.apns, h.fcm, fanOut, Math.floor(SUBSCRIBERS * share), () => {
          marks.push(faultMark(h));
          h.apnsProxy.reset();
          h.fcmProxy.reset();
        });
      }
      const final = await waitUntilSent(h, fanOut);
      expectEveryPushDeliveredRepeatingOnlyAtFaults(h, final, fanOut, marks, marks.length * 2 * CHAOS_IN_FLIGHT);
      // Both providers really lost their connections and made new ones.
      expect(h.apnsProxy.acceptedConnections).toBeGreaterThan(1);
      expect(h.fcmProxy.acceptedConnections).toBeGreaterThan(1);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    `delivers all ${SUBSCRIBERS} pushes when the open connections are black-holed (new ones work)`,
    async () => {
      const fanOut = await startFanOut(h);
      const marks: FaultMark[] = [];
      await atPushes(h.apns, h.fcm, fanOut, Math.floor(SUBSCRIBERS * 0.3), () => {
        marks.push(faultMark(h));
        // A NAT entry expiring, or a peer gone without a FIN: silence on the old connections only.
        h.apnsProxy.stall({ newConnections: false });
        h.fcmProxy.stall({ newConnections: false });
      });
      const final = await waitUntilSent(h, fanOut);
      expectEveryPushDeliveredRepeatingOnlyAtFaults(h, final, fanOut, marks, 2 * CHAOS_IN_FLIGHT);
      h.apnsProxy.resume();
      h.fcmProxy.resume();
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    `delivers all ${SUBSCRIBERS} pushes after a partition that also swallows new connections heals`,
    async () => {
      const fanOut = await startFanOut(h);
      const marks: FaultMark[] = [];
      await atPushes(h.apns, h.fcm, fanOut, Math.floor(SUBSCRIBERS * 0.3), () => {
        marks.push(faultMark(h));
        h.apnsProxy.stall();
        h.fcmProxy.stall();
      });
      // Healed once FCM's pool, its request timed out, has tried a replacement connection (which the partition holds too).
      const connectionsAtStall = h.fcmProxy.acceptedConnections;
      await new Promise<void>((resolve) => {
        const off = h.fcmProxy.onConnection((accepted) => {
          if (accepted <= connectionsAtStall) return;
          off();
          resolve();
        });
      });
      h.apnsProxy.resume();
      h.fcmProxy.resume();
      const final = await waitUntilSent(h, fanOut);
      expectEveryPushDeliveredRepeatingOnlyAtFaults(h, final, fanOut, marks, 2 * CHAOS_IN_FLIGHT);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
