import type { Socket } from 'node:net';

/**
 * One direction of a proxied connection (client → upstream, or back): forwards chunks in order, and can hold them
 * (stall), delay each by a fixed time (slow) or trickle them (drip). Stalling pauses the source instead of buffering
 * without bound, so the sender's writes back up exactly as they would behind a network that drops everything: its
 * kernel send buffer fills and nothing is acknowledged at the HTTP/2 level.
 */
export class FaultLane {
  private readonly queue: Array<{ chunk: Buffer; due: number }> = [];
  private timer: NodeJS.Timeout | null = null;
  private stalled = false;
  private delayMs = 0;
  private dripMs = 0;
  /** Dripping: the first chunk since drip() went out whole ("answers at once"); every later byte waits its turn. */
  private dripping = false;
  private nextDripAt = 0;
  private ended = false;
  private disposed = false;

  constructor(
    private readonly source: Socket,
    private readonly target: Socket,
  ) {
    source.on('data', (chunk: Buffer) => {
      if (this.disposed) return;
      this.queue.push({ chunk, due: Date.now() + this.delayMs });
      // A dripping lane reads no faster than it forwards: the sender backs up as behind a slow reader.
      if (this.dripping) this.source.pause();
      this.flush();
    });
    source.on('end', () => {
      this.ended = true;
      this.flush();
    });
  }

  stall(): void {
    this.stalled = true;
    this.source.pause();
  }

  resume(): void {
    this.stalled = false;
    this.source.resume();
    this.flush();
  }

  slow(ms: number): void {
    this.delayMs = Math.max(0, ms);
  }

  /**
   * From now on the next chunk is forwarded whole, and after it one byte every `ms` (0 turns it off): a peer that
   * answers at once and then trickles the rest, keeping a connection busy without ever finishing.
   */
  drip(ms: number): void {
    this.dripMs = Math.max(0, ms);
    this.dripping = false;
    if (this.dripMs === 0 && !this.stalled && !this.disposed) this.source.resume();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flush();
  }

  /** Cancels a pending delayed write and forwards nothing more (the connection is being torn down). */
  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.queue.length = 0;
  }

  private flush(): void {
    if (this.disposed || this.stalled || this.timer || this.target.destroyed) return;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      const wait = Math.max(head.due, this.dripping ? this.nextDripAt : 0) - Date.now();
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = null;
          this.flush();
        }, wait);
        return;
      }
      if (this.dripping) {
        this.target.write(head.chunk.subarray(0, 1));
        if (head.chunk.length > 1) head.chunk = head.chunk.subarray(1);
        else this.queue.shift();
        this.nextDripAt = Date.now() + this.dripMs;
        continue;
      }
      this.queue.shift();
      if (this.dripMs > 0) {
        this.dripping = true;
        this.nextDripAt = Date.now() + this.dripMs;
      }
      if (!this.target.write(head.chunk)) {
        // Backpressure: stop reading until the other side drains, so memory stays bounded.
        this.source.pause();
        this.target.once('drain', () => {
          if (!this.stalled && !this.dripping && !this.disposed) this.source.resume();
        });
      }
    }
    // Everything held went out: a dripping lane reads the next chunk now.
    if (this.dripping && !this.ended) this.source.resume();
    if (this.ended && !this.target.destroyed) this.target.end();
  }
}
