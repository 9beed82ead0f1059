import type { Socket } from 'node:net';

/**
 * One direction of a proxied connection (client → upstream, or back): forwards chunks in order, and can hold them
 * (stall) or delay each by a fixed time (slow). Stalling pauses the source instead of buffering without bound, so
 * the sender's writes back up exactly as they would behind a network that drops everything: its kernel send buffer
 * fills and nothing is acknowledged at the HTTP/2 level.
 */
export class FaultLane {
  private readonly queue: Array<{ chunk: Buffer; due: number }> = [];
  private timer: NodeJS.Timeout | null = null;
  private stalled = false;
  private delayMs = 0;
  private ended = false;

  constructor(
    private readonly source: Socket,
    private readonly target: Socket,
  ) {
    source.on('data', (chunk: Buffer) => {
      this.queue.push({ chunk, due: Date.now() + this.delayMs });
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

  /** Cancels a pending delayed write (the connection is being torn down). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.queue.length = 0;
  }

  private flush(): void {
    if (this.stalled || this.timer || this.target.destroyed) return;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      const wait = head.due - Date.now();
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = null;
          this.flush();
        }, wait);
        return;
      }
      this.queue.shift();
      if (!this.target.write(head.chunk)) {
        // Backpressure: stop reading until the other side drains, so memory stays bounded.
        this.source.pause();
        this.target.once('drain', () => {
          if (!this.stalled) this.source.resume();
        });
      }
    }
    if (this.ended && !this.target.destroyed) this.target.end();
  }
}
