import type { Clock } from '../domain/clock.ts';

/**
 * Per-key token bucket: `burst` requests at once, refilled at `perSecond`. Hand-written (30 lines) because
 * @fastify/rate-limit counts fixed windows, not a sustained rate with bursts, and runs before our key is known.
 * In memory per process: with N API processes a key may reach N × the rate; documented in docs/api.md.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {}

  /** Takes one token; returns 0 when allowed, else the whole seconds to wait before retrying. */
  take(key: string): number {
    const now = this.clock.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedAt: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  /** Drops buckets that have been full for a while, so memory follows active keys only. */
  sweep(): void {
    const now = this.clock.now();
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond >= this.burst) this.buckets.delete(key);
    }
  }
}
