import type { Clock } from '../../domain/clock.ts';

/**
 * Bounded concurrency per push-service origin, and a pause for an origin that stopped answering.
 *
 * - At most `limitOf(origin)` pushes to one origin are in flight; the rest wait here (not inside the HTTP client), so
 *   the client's timeouts count from when a push is really sent, never from time spent queued behind others. The
 *   limit may change with what the origin's connection turned out to be (web-push-client.ts: HTTP/2 or HTTP/1.1);
 *   `widen` lets waiting pushes into room that a raised limit made.
 * - A push that times out marks its origin unresponsive for `pauseMs`: pushes to it that are still waiting, or come
 *   later, return at once as "retry later" instead of each waiting out its own timeout. Subscription endpoints are
 *   chosen by whoever registers them, so one slow or hostile origin with many subscriptions costs a batch one timeout,
 *   not one per subscription, and other origins' pushes go on in their own lanes meanwhile.
 */
const MAX_REMEMBERED_PAUSES = 1_000;

export class OriginLanes {
  private readonly lanes = new Map<string, { active: number; waiting: Array<() => void> }>();
  private readonly pausedUntil = new Map<string, number>();

  constructor(
    private readonly limitOf: (origin: string) => number,
    private readonly pauseMs: number,
    private readonly clock: Clock,
  ) {}

  /** Runs `work` in `origin`'s lane; answers `paused(remainingMs)` instead while the origin is paused. */
  async run<T>(origin: string, work: () => Promise<T>, paused: (remainingMs: number) => T): Promise<T> {
    const lane = this.lanes.get(origin) ?? { active: 0, waiting: [] };
    this.lanes.set(origin, lane);
    // A finished push hands its slot straight to the next waiting one, so a newcomer never slips in between.
    if (lane.active >= this.limitOf(origin)) await new Promise<void>((resolve) => lane.waiting.push(resolve));
    else lane.active += 1;
    try {
      const remaining = this.pauseRemaining(origin);
      return remaining > 0 ? paused(remaining) : await work();
    } finally {
      // Past a lowered limit the slot is given up rather than handed on.
      const next = lane.active <= this.limitOf(origin) ? lane.waiting.shift() : undefined;
      if (next) next();
      else if (--lane.active === 0 && lane.waiting.length === 0) this.lanes.delete(origin);
    }
  }

  /** The origin's limit went up: waiting pushes take the new room at once. */
  widen(origin: string): void {
    const lane = this.lanes.get(origin);
    if (!lane) return;
    const limit = this.limitOf(origin);
    while (lane.active < limit && lane.waiting.length > 0) {
      lane.active += 1;
      lane.waiting.shift()!();
    }
  }

  /** The origin did not answer in time: pause it. */
  pause(origin: string): void {
    const now = this.clock.now();
    // Origins are chosen by whoever registers subscriptions: forget lapsed pauses rather than keep one per origin ever seen.
    if (this.pausedUntil.size >= MAX_REMEMBERED_PAUSES)
      for (const [known, until] of this.pausedUntil) if (until <= now) this.pausedUntil.delete(known);
    this.pausedUntil.set(origin, now + this.pauseMs);
  }

  private pauseRemaining(origin: string): number {
    const until = this.pausedUntil.get(origin);
    if (until === undefined) return 0;
    const remaining = until - this.clock.now();
    if (remaining <= 0) this.pausedUntil.delete(origin);
    return Math.max(0, remaining);
  }
}
