import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_PING_TIMEOUT_MS,
  SILENCE_CHECK_MS,
  SILENT_AFTER_MS,
} from '../../src/delivery/http2/session-pool.ts';
import { SEND_BATCH_SIZE } from '../../src/delivery/job-kinds.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import type { FaultProxy } from '../../tools/fault-proxy/fault-proxy.ts';
import { waitFor } from '../harness/wait-for.ts';
import {
  RECOVERY_DEADLINE_MS,
  SCENARIO_TIMEOUT_MS,
  SUBSCRIBERS,
  atPushes,
  expectEveryPushDelivered,
  receivedCounts,
  startFanOut,
  startServeWorkerHarness,
  waitUntilSent,
  type FanOut,
  type ServeWorkerHarness,
  type WorkerMode,
} from './chaos-harness.ts';

/**
 * One connection fault in the middle of a fan-out, with the worker as an operator runs it (default settings, the
 * real clock; chaos-harness.ts, startServeWorkerHarness), beside the API on one event loop and on its own thread.
 * What must hold after any fault (docs/delivery.md, "After a connection fault"): the first push on a new connection
 * goes out within RECOVERY_BOUND_MS of the moment the fault can be known — at once for a reset or a refused
 * connection, at the deadline of the PING that a busy connection gets once it has heard nothing for 2 s for a silent
 * peer, once the connect timeout has passed for a TLS handshake that never completes — and the fan-out completes with nothing lost, a push repeated
 * only when its first copy rode a connection the fault broke.
 */
const RECOVERY_BOUND_MS = 5_000;
/** Where the fault strikes: about a quarter of the way through a CI-sized fan-out. */
const FAULT_AT_PUSHES = Math.round(SUBSCRIBERS * 0.225);
/** Pushes the default worker has in flight at most: CLARION_WORKER_CONCURRENCY send jobs of SEND_BATCH_SIZE. */
const IN_FLIGHT = loadConfig({}).workerConcurrency * SEND_BATCH_SIZE;
/** A busy connection that hears nothing is PINGed within SILENT_AFTER_MS (checked every SILENCE_CHECK_MS); then the PING's deadline. */
const SILENCE_NOTICED_MS = SILENT_AFTER_MS + SILENCE_CHECK_MS + DEFAULT_PING_TIMEOUT_MS;

interface Fault {
  name: string;
  /** Breaks the connections through `proxy` (called for both providers' at once). */
  strike(proxy: FaultProxy): void;
  /** How long after the fault a client can know its connection is gone. */
  noticedAfterMs: number;
}

const FAULTS: Fault[] = [
  { name: 'both sides of every connection reset', strike: (proxy) => proxy.reset('both'), noticedAfterMs: 0 },
  {
    name: "the provider's side reset, Clarion's left open and silent",
    strike: (proxy) => proxy.reset('upstream'),
    noticedAfterMs: SILENCE_NOTICED_MS,
  },
  { name: "Clarion's side reset", strike: (proxy) => proxy.reset('client'), noticedAfterMs: 0 },
  {
    name: 'a reset, then the first reconnect refused',
    strike: (proxy) => {
      proxy.refuse(1);
      proxy.reset('both');
    },
    noticedAfterMs: 0,
  },
  {
    name: "a reset, then the first reconnect's TLS handshake never completes",
    strike: (proxy) => {
      proxy.swallow(1);
      proxy.reset('both');
    },
    noticedAfterMs: DEFAULT_CONNECT_TIMEOUT_MS,
  },
  {
    name: 'a silent peer (the open connections black-holed)',
    strike: (proxy) => proxy.stall({ newConnections: false }),
    noticedAfterMs: SILENCE_NOTICED_MS,
  },
];

let h: ServeWorkerHarness | null = null;

/**
 * Where things stood at the fault: each fake's request log, and its connections — fake APNs numbers its sessions as
 * they open; fake FCM numbers a connection at its first request, so one opened just before the fault may get a number
 * above the mark, which only makes "a connection opened after the fault" looser for Android.
 */
interface FaultMark {
  at: number;
  apnsRequests: number;
  fcmRequests: number;
  apnsSessions: number;
  fcmConnections: number;
}

function markOf(harness: ServeWorkerHarness): FaultMark {
  const fcmConnections = harness.fcm.requests.reduce((max, request) => Math.max(max, request.connectionId), 0);
  return {
    at: Date.now(),
    apnsRequests: harness.apns.requests.length,
    fcmRequests: harness.fcm.requests.length,
    apnsSessions: harness.apns.sessions.length,
    fcmConnections,
  };
}

/** When each provider first answered 200 to a push of the fan-out on a connection opened after the fault. */
function firstPushesAfter(
  harness: ServeWorkerHarness,
  fanOut: FanOut,
  mark: FaultMark,
): { ios: number | null; android: number | null } {
  const ios = harness.apns.requests.find(
    (request) =>
      request.status === 200 && request.sessionId > mark.apnsSessions && fanOut.tokens.has(request.token ?? ''),
  );
  const android = harness.fcm.requests.find(
    (request) =>
      request.status === 200 &&
      request.connectionId > mark.fcmConnections &&
      fanOut.tokens.has(request.target?.value ?? ''),
  );
  return { ios: ios?.at ?? null, android: android?.at ?? null };
}

/**
 * A repeated push was in flight at the fault, its answer lost: its first copy is among the IN_FLIGHT requests the fake
 * answered just before the fault, or just after it (read before, answered after), and for iOS it went out on a
 * session open at the fault.
 */
function expectRepeatsOnlyFromBrokenConnections(
  harness: ServeWorkerHarness,
  repeated: string[],
  mark: FaultMark,
): void {
  for (const token of repeated) {
    const ios = harness.apns.requests.findIndex((request) => request.status === 200 && request.token === token);
    const android = harness.fcm.requests.findIndex(
      (request) => request.status === 200 && request.target?.value === token,
    );
    const [index, faultIndex] = ios >= 0 ? [ios, mark.apnsRequests] : [android, mark.fcmRequests];
    expect(
      Math.abs(index - faultIndex),
      `${token} repeated, but its first copy was not in flight at the fault`,
    ).toBeLessThanOrEqual(IN_FLIGHT);
    if (ios >= 0)
      expect(
        harness.apns.requests[ios]!.sessionId,
        `${token} repeated, but its first copy went out on a session opened after the fault`,
      ).toBeLessThanOrEqual(mark.apnsSessions);
  }
}

/**
 * The scenarios for one way of running the worker; a test file per way (connection-faults-*.test.ts), so the two run
 * side by side on the suite's two workers.
 */
export function describeConnectionFaults(mode: WorkerMode): void {
  afterEach(async () => {
    await h?.close();
    h = null;
  });
  describe(`chaos: one connection fault with the default worker settings (${mode})`, () => {
    it.each(FAULTS)(
      `$name: pushes resume within ${RECOVERY_BOUND_MS} ms of the fault being noticeable, and all ${SUBSCRIBERS} arrive`,
      async (fault) => {
        const harness = (h = await startServeWorkerHarness(mode));
        const fanOut = await startFanOut(harness);
        let mark: FaultMark | null = null;
        await atPushes(harness.apns, harness.fcm, fanOut, FAULT_AT_PUSHES, () => {
          mark = markOf(harness);
          fault.strike(harness.apnsProxy);
          fault.strike(harness.fcmProxy);
        });
        const struck = mark! as FaultMark;
        const final = await waitUntilSent(harness, fanOut);
        const repeated = expectEveryPushDelivered(
          final,
          receivedCounts(harness.apns, harness.fcm, fanOut),
          fanOut,
          IN_FLIGHT,
        );
        expectRepeatsOnlyFromBrokenConnections(harness, repeated, struck);
        const first = firstPushesAfter(harness, fanOut, struck);
        const boundMs = fault.noticedAfterMs + RECOVERY_BOUND_MS;
        expect(first.ios, 'an iOS push on a new connection').not.toBeNull();
        expect(first.android, 'an Android push on a new connection').not.toBeNull();
        expect(
          first.ios! - struck.at,
          `ms from the fault to the first iOS push on a new connection (bound ${boundMs})`,
        ).toBeLessThanOrEqual(boundMs);
        expect(
          first.android! - struck.at,
          `ms from the fault to the first Android push on a new connection (bound ${boundMs})`,
        ).toBeLessThanOrEqual(boundMs);
      },
      SCENARIO_TIMEOUT_MS,
    );

    it(
      `a silent APNs holds up no Android push: they go on, never ${RECOVERY_BOUND_MS} ms apart, while every APNs connection stays silent`,
      async () => {
        const harness = (h = await startServeWorkerHarness(mode));
        const fanOut = await startFanOut(harness);
        const androidTokens = [...fanOut.tokens.keys()].filter((token) => !/^[0-9a-f]{64}$/.test(token));
        let mark: FaultMark | null = null;
        await atPushes(harness.apns, harness.fcm, fanOut, FAULT_AT_PUSHES, () => {
          mark = markOf(harness);
          // A partition in front of APNs alone: open connections and new ones hear nothing.
          harness.apnsProxy.stall();
        });
        const struck = mark! as FaultMark;
        await waitFor(
          () => androidTokens.every((token) => receivedCounts(harness.apns, harness.fcm, fanOut).has(token)),
          RECOVERY_DEADLINE_MS,
          'every Android push while APNs is silent',
        );
        // Each Android push after the fault came within the bound of the one before it (or of the fault).
        let previous = struck.at;
        let longestGap = 0;
        for (const request of harness.fcm.requests) {
          if (request.status !== 200 || request.at < struck.at) continue;
          longestGap = Math.max(longestGap, request.at - previous);
          previous = request.at;
        }
        expect(longestGap, 'the longest wait between Android pushes while APNs was silent (ms)').toBeLessThanOrEqual(
          RECOVERY_BOUND_MS,
        );
        harness.apnsProxy.resume();
        const final = await waitUntilSent(harness, fanOut);
        const repeated = expectEveryPushDelivered(
          final,
          receivedCounts(harness.apns, harness.fcm, fanOut),
          fanOut,
          IN_FLIGHT,
        );
        expectRepeatsOnlyFromBrokenConnections(harness, repeated, struck);
      },
      SCENARIO_TIMEOUT_MS,
    );
  });
}
