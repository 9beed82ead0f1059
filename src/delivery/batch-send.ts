import type { DeliveryOutcome } from './delivery-outcome.ts';

/**
 * Pushes in flight at once per send job. The provider clients queue what their HTTP/2 sessions cannot take yet, so
 * this only bounds the memory of one batch; with the 500-token batches (job-kinds.ts) every token is in flight at once,
 * as before, while a larger caller-made batch cannot open thousands of streams.
 */
const SEND_CONCURRENCY = 500;

/**
 * The longest stretch, in milliseconds, that a send loop runs without letting the event loop turn. Starting 500
 * pushes is one synchronous run of ~500 `session.request()` calls (tens of ms on the 2-core machine, docs/performance.md,
 * "Accept path"), during which the API in the same process answers nothing; past this budget the loop waits for the
 * event loop's next turn (setImmediate: pending I/O first, then the rest of the sends). Exported for its test
 * (tests/delivery/engine/batch-send.test.ts). Measured against no slicing (docs/performance.md, "Levers tried and not kept"): not
 * separable on a saturated machine; kept because it bounds this stretch by construction.
 */
export const SEND_SLICE_MS = 4;

/**
 * The send loop of both send jobs: `sendOne` for each id, at most `concurrency` at a time, and one outcome per id
 * (in the order of `ids`). `sendOne` answers null for an id with nothing to send (its token gone since the dispatch).
 * A thrown error is a failure of the connection rather than an answer, so that token is retried in the next round.
 * `onAnswer` is called as each push settles: the send job's progress for the worker (worker-pool.ts, STALLED_AFTER_MS).
 */
export function sendEach(
  ids: readonly string[],
  sendOne: (id: string) => Promise<DeliveryOutcome | null>,
  options: { concurrency?: number; onAnswer?: () => void } = {},
): Promise<Map<string, DeliveryOutcome>> {
  const { concurrency = SEND_CONCURRENCY, onAnswer } = options;
  // Callbacks on each push's promise rather than `concurrency` async lanes that await it: no async function, lane
  // promise and Map entry per push, one array slot instead (bench/fanout-cpu.ts).
  return new Promise((resolve) => {
    const limit = Math.max(1, concurrency);
    const answers = new Array<DeliveryOutcome | null | undefined>(ids.length);
    let next = 0;
    let inFlight = 0;
    let answered = 0;
    let resumeScheduled = false;
    let sliceStart = performance.now();
    const finish = () => {
      const outcomes = new Map<string, DeliveryOutcome>();
      for (let index = 0; index < ids.length; index += 1) {
        const answer = answers[index];
        if (answer) outcomes.set(ids[index]!, answer);
      }
      resolve(outcomes);
    };
    const settle = (index: number, answer: DeliveryOutcome | null) => {
      onAnswer?.();
      answers[index] = answer;
      inFlight -= 1;
      answered += 1;
      if (answered === ids.length) finish();
      else startMore();
    };
    const resume = () => {
      resumeScheduled = false;
      sliceStart = performance.now();
      startMore();
    };
    function startMore(): void {
      while (next < ids.length && inFlight < limit) {
        if (performance.now() - sliceStart > SEND_SLICE_MS) {
          // Pending I/O first (setImmediate), then the rest of the sends in a new slice.
          if (!resumeScheduled) {
            resumeScheduled = true;
            setImmediate(resume);
          }
          return;
        }
        const index = next;
        next += 1;
        inFlight += 1;
        let answer: Promise<DeliveryOutcome | null>;
        try {
          answer = sendOne(ids[index]!);
        } catch (error) {
          answer = Promise.reject(error);
        }
        answer.then(
          (outcome) => settle(index, outcome),
          (error: unknown) =>
            settle(index, { kind: 'retry', reason: `network: ${(error as Error).message}`, retryAfterMs: null }),
        );
      }
    }
    if (ids.length === 0) finish();
    else startMore();
  });
}
