/**
 * The pool's request timeouts (http2-session-pool.ts) with one timer for all of them instead of one per request.
 *
 * Every deadline of a pool is "now + the same timeout", so deadlines arrive in order and a FIFO with a single timer
 * for its head holds them all. A per-request setTimeout/clearTimeout pair was one of the costs a push had over a bare
 * node:http2 client in bench/fanout-cpu.ts (issue 11). A deadline is cancelled by moving the request's own `deadline`
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

  private sweep(): void {
    const now = performance.now();
    while (this.head < this.items.length && this.at[this.head]! <= now) {
      const item = this.items[this.head]!;
      const at = this.at[this.head]!;
      this.head += 1;
      if (item.deadline === at) {
        item.deadline = 0;
        this.expire(item);
      }
    }
    this.schedule();
  }
}
