import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SEND_BATCH_SIZE } from '../../src/delivery/job-kinds.ts';
import {
  SCENARIO_TIMEOUT_MS,
  SHORT_REQUEST_TIMEOUT_MS,
  SUBSCRIBERS,
  atPushes,
  expectEveryPushDelivered,
  receivedCounts,
  startChaosHarness,
  startFanOut,
  waitUntilSent,
  type ChaosHarness,
  type FanOut,
} from './chaos-harness.ts';

/**
 * Connections reset or black-holed in the middle of a fan-out. Before the fix a destroyed session
 * stayed in the pool and, with FCM's single session, nothing reached Android again until a restart. Now every push
 * is delivered within a bounded time after the last fault, the stats are exact, and a push is repeated only when
 * its first copy was in flight at a fault (answered by the fake, but the answer lost with the connection).
 */
let h: ChaosHarness;
beforeEach(async () => {
  h = await startChaosHarness({ requestTimeoutMs: SHORT_REQUEST_TIMEOUT_MS });
});
afterEach(async () => h?.close());

/** Where each fake's request log stood at a fault: a repeated push's first copy must lie just before one of them. */
interface FaultMark {
  apns: number;
  fcm: number;
}

function mark(): FaultMark {
  return { apns: h.apns.requests.length, fcm: h.fcm.requests.length };
}

/** Pushes one worker has in flight at most: its concurrency (4 send jobs) × the batch size. */
const IN_FLIGHT = 4 * SEND_BATCH_SIZE;

/**
 * Every repeated token's first 200 was among the requests in flight at some fault: within IN_FLIGHT requests of that
 * fault's mark — before it, or after it for requests the fake finished reading (and recorded) only after the fault.
 */
function expectRepeatsOnlyAtFaults(repeated: string[], marks: FaultMark[], fanOut: FanOut): void {
  const window = IN_FLIGHT;
  for (const token of repeated) {
    const ios = h.apns.requests.findIndex((request) => request.status === 200 && request.token === token);
    const android = h.fcm.requests.findIndex((request) => request.status === 200 && request.target?.value === token);
    const first = ios >= 0 ? { at: ios, key: 'apns' as const } : { at: android, key: 'fcm' as const };
    const nearFault = marks.some((faultMark) => Math.abs(first.at - faultMark[first.key]) <= window);
    expect(nearFault, `token ${fanOut.tokens.get(token)} repeated without a fault around its first push`).toBe(true);
  }
}

describe('chaos: connection faults mid fan-out', () => {
  it(
    `delivers all ${SUBSCRIBERS} pushes when every connection is reset three times`,
    async () => {
      const fanOut = await startFanOut(h);
      const marks: FaultMark[] = [];
      for (const share of [0.2, 0.45, 0.7]) {
        await atPushes(h.apns, h.fcm, fanOut, Math.floor(SUBSCRIBERS * share), () => {
          marks.push(mark());
          h.apnsProxy.reset();
          h.fcmProxy.reset();
        });
      }
      const final = await waitUntilSent(h, fanOut);
      const repeated = expectEveryPushDelivered(
        final,
        receivedCounts(h.apns, h.fcm, fanOut),
        fanOut,
        marks.length * 2 * IN_FLIGHT,
      );
      expectRepeatsOnlyAtFaults(repeated, marks, fanOut);
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
        marks.push(mark());
        // A NAT entry expiring, or a peer gone without a FIN: silence on the old connections only.
        h.apnsProxy.stall({ newConnections: false });
        h.fcmProxy.stall({ newConnections: false });
      });
      const final = await waitUntilSent(h, fanOut);
      const repeated = expectEveryPushDelivered(final, receivedCounts(h.apns, h.fcm, fanOut), fanOut, 2 * IN_FLIGHT);
      expectRepeatsOnlyAtFaults(repeated, marks, fanOut);
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
        marks.push(mark());
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
      const repeated = expectEveryPushDelivered(final, receivedCounts(h.apns, h.fcm, fanOut), fanOut, 2 * IN_FLIGHT);
      expectRepeatsOnlyAtFaults(repeated, marks, fanOut);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
