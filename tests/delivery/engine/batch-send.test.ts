import { describe, expect, it } from 'vitest';
import { SEND_SLICE_MS, sendEach } from '../../../src/delivery/send-batch.ts';
import type { DeliveryOutcome } from '../../../src/delivery/delivery-outcome.ts';

const delivered: DeliveryOutcome = { kind: 'delivered' };

describe('sendEach', () => {
  it('answers one outcome per id in the order of the ids, leaving out ids with nothing to send', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    // Answers arrive in reverse order.
    const outcomes = await sendEach(
      ids,
      (id) =>
        new Promise((resolve) =>
          setTimeout(() => resolve(id === 'c' ? null : { kind: 'rejected', reason: id }), 10 * (4 - ids.indexOf(id))),
        ),
    );
    expect([...outcomes.entries()]).toEqual([
      ['a', { kind: 'rejected', reason: 'a' }],
      ['b', { kind: 'rejected', reason: 'b' }],
      ['d', { kind: 'rejected', reason: 'd' }],
    ]);
  });

  it('turns a rejected or thrown send into a retry of that id only', async () => {
    const outcomes = await sendEach(['ok', 'rejects', 'throws'], (id) => {
      if (id === 'throws') throw new Error('boom');
      return id === 'rejects' ? Promise.reject(new Error('reset')) : Promise.resolve(delivered);
    });
    expect(Object.fromEntries(outcomes)).toEqual({
      ok: delivered,
      rejects: { kind: 'retry', reason: 'network: reset', retryAfterMs: null },
      throws: { kind: 'retry', reason: 'network: boom', retryAfterMs: null },
    });
  });

  it('keeps at most `concurrency` sends in flight and sends every id once', async () => {
    let inFlight = 0;
    let most = 0;
    const sent: string[] = [];
    const ids = Array.from({ length: 50 }, (_, n) => `s${n}`);
    const outcomes = await sendEach(
      ids,
      async (id) => {
        sent.push(id);
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
        return delivered;
      },
      { concurrency: 7 },
    );
    expect(most).toBe(7);
    expect(sent).toEqual(ids);
    expect(outcomes.size).toBe(50);
  });

  it('lets the event loop turn once a slice of sends has run past its budget: work queued before the batch runs before its second send', async () => {
    const started: string[] = [];
    let startedWhenQueuedWorkRan: number | null = null;
    // What an API request arriving during the batch stands for: queued before the batch, run at the loop's next turn.
    setImmediate(() => (startedWhenQueuedWorkRan = started.length));
    const outcomes = await sendEach(['a', 'b', 'c', 'd'], (id) => {
      started.push(id);
      // Each send takes longer than a slice may (building a push synchronously on a slow machine), so every send
      // after the first must wait for the loop's next turn. Asserted is the order, not a duration.
      const until = performance.now() + SEND_SLICE_MS + 1;
      while (performance.now() < until) {
        // Busy, as synchronous work is.
      }
      return Promise.resolve(delivered);
    });
    expect(startedWhenQueuedWorkRan).toBe(1);
    expect(outcomes.size).toBe(4);
  });

  it('resolves at once for no ids', async () => {
    expect((await sendEach([], () => Promise.resolve(delivered))).size).toBe(0);
  });
});
