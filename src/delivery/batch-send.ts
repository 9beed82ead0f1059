import type { DeliveryOutcome } from './delivery-outcome.ts';

/**
 * Pushes in flight at once per send job. The provider clients queue what their HTTP/2 sessions cannot take yet, so
 * this only bounds the memory of one batch; with the 500-token batches (job-kinds.ts) every token is in flight at once,
 * as before, while a larger caller-made batch cannot open thousands of streams.
 */
const SEND_CONCURRENCY = 500;

/**
 * The longest stretch, in milliseconds, that a send loop runs without letting the event loop turn. Starting 500
 * pushes is one synchronous run of ~500 `session.request()` calls (tens of ms on the 2-core machine, bench/README.md
 * "Accept path"), during which the API in the same process answers nothing; past this budget the loop waits for the
 * event loop's next turn (setImmediate: pending I/O first, then the rest of the sends).
 */
const SEND_SLICE_MS = 4;

/**
 * The send loop of both send jobs: `sendOne` for each id, at most `concurrency` at a time, and one outcome per id
 * (in the order of `ids`). `sendOne` answers null for an id with nothing to send (its token gone since the dispatch).
 * A thrown error is a failure of the connection rather than an answer, so that token is retried in the next round.
 */
export async function sendEach(
  ids: readonly string[],
  sendOne: (id: string) => Promise<DeliveryOutcome | null>,
  concurrency = SEND_CONCURRENCY,
): Promise<Map<string, DeliveryOutcome>> {
  const answers = new Map<string, DeliveryOutcome | null>();
  let next = 0;
  let sliceStart = performance.now();
  const lane = async () => {
    while (next < ids.length) {
      if (performance.now() - sliceStart > SEND_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        // The first lane back starts a new slice; the others find it fresh and continue until it is spent again.
        if (performance.now() - sliceStart > SEND_SLICE_MS) sliceStart = performance.now();
        continue;
      }
      const id = ids[next]!;
      next += 1;
      try {
        answers.set(id, await sendOne(id));
      } catch (error) {
        answers.set(id, { kind: 'retry', reason: `network: ${(error as Error).message}`, retryAfterMs: null });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, ids.length)) }, lane));
  const outcomes = new Map<string, DeliveryOutcome>();
  for (const id of ids) {
    const answer = answers.get(id);
    if (answer) outcomes.set(id, answer);
  }
  return outcomes;
}
