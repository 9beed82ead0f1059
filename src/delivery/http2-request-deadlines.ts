/**
 * The pool's request timeouts (http2-session-pool.ts) with one timer for all of them instead of one per request.
 *
 * Every deadline of a pool is "now + the same timeout", so deadlines arrive in order and a FIFO with a single timer
 * for its head holds them all. A per-request setTimeout/clearTimeout pair was one of the costs a push had over a bare
 * node:http2 client in bench/fanout-cpu.ts. A deadline is cancelled by moving the request's own `deadline`
 * (settling it, or arming it again): the queue skips entries that no longer match when it reaches them.
 */
export interface Deadlined {
  /** performance.now() at which the request times out; 0 when it has no deadline (settled). */
  deadline: number;
}

export class RequestDeadlines<Item extends Deadlined> {
  private readonly items: Item[] = [];
  private readonly at: number[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly expire: (item: Item) => void,
  ) {}

  /** (Re)starts `item`'s timeout: it expires `timeoutMs` from now unless its deadline changes first. */
  arm(item: Item): void {
    // Strictly increasing, so an item armed twice in one millisecond is told apart from its earlier entry.
    const last = this.at.length > this.head ? this.at[this.at.length - 1]! : 0;
    item.deadline = Math.max(performance.now() + this.timeoutMs, last + 1e-6);
    this.items.push(item);
    this.at.push(item.deadline);
    if (this.timer === null) this.schedule();
    // Answered requests leave the queue here too, not only when the timer fires: they are nearly all of it, and
    // holding them for the whole timeout (15 s of a fan-out's requests) grew the worker's peak RSS with the channel.
    else if (this.items.length - this.head > 2048) this.dropSettled();
  }

  /** Skips entries at the head whose item was settled or armed again, and frees the skipped part of the arrays. */
  private dropSettled(): void {
    while (this.head < this.items.length && this.items[this.head]!.deadline !== this.at[this.head]) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.at.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Cancels the timer (the pool is closing); armed items never expire after this. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.items.length = 0;
    this.at.length = 0;
    this.head = 0;
  }

  private schedule(): void {
    this.dropSettled();
    if (this.head >= this.items.length) {
      this.timer = null;
      return;
    }
    this.timer = setTimeout(() => this.sweep(), Math.max(0, this.at[this.head]! - performance.now()));
    // Requests keep the process alive through their sockets, not through this timer.
    this.timer.unref();
  }

  /**
   * Runs in the timers phase, which comes before the poll phase that reads the sockets: after the loop was blocked
   * (a starved worker), answers that arrived meanwhile still wait unread. So the overdue items are only noted here,
   * and expired in the check phase (setImmediate), after this turn's poll has read what had arrived: a request whose
   * answer came in time is settled by then and not timed out, and so not sent again
   * (tests/delivery/http2/http2-request-deadlines.test.ts).
   */
  private sweep(): void {
    const now = performance.now();
    const overdue: Array<[Item, number]> = [];
    while (this.head < this.items.length && this.at[this.head]! <= now) {
      const item = this.items[this.head]!;
      const at = this.at[this.head]!;
      this.head += 1;
      if (item.deadline === at) overdue.push([item, at]);
    }
    if (overdue.length > 0) setImmediate(() => this.expireUnanswered(overdue));
    this.schedule();
  }

  private expireUnanswered(overdue: Array<[Item, number]>): void {
    if (this.stopped) return;
    for (const [item, at] of overdue) {
      // Answered (deadline 0) or armed again since the sweep: not expired.
      if (item.deadline !== at) continue;
      item.deadline = 0;
      this.expire(item);
    }
  }
}
