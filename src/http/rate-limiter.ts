import type { Clock } from '../domain/clock.ts';
import type { ClarionApp } from './app-types.ts';

/**
 * The most buckets one limiter keeps. A publishable key's buckets are per client address, and an app with millions of
 * installs may show millions of addresses; at about 150 bytes a bucket this caps a limiter near 15 MB.
 */
export const MAX_RATE_BUCKETS = 100_000;

/**
 * Token bucket per caller key: `burst` requests at once, refilled at `perSecond`. Hand-written (30 lines) because
 * @fastify/rate-limit counts fixed windows, not a sustained rate with bursts, and runs before our key is known.
 * In memory per process: with N API processes a key may reach N × the rate; documented in docs/api.md.
 *
 * Memory is bounded two ways: sweep() drops buckets that have refilled (idle callers), and past `maxBuckets` the
 * least recently used bucket is dropped at once. The Map keeps insertion order and take() re-inserts, so its first
 * entry is always the one idle longest. A dropped bucket starts full again: at worst an idle caller gets one extra
 * burst, never a false refusal.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly clock: Clock,
    private readonly maxBuckets: number = MAX_RATE_BUCKETS,
  ) {}

  /** Takes one token; returns 0 when allowed, else the whole seconds to wait before retrying. */
  take(key: string): number {
    const now = this.clock.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedAt: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond);
    bucket.updatedAt = now;
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value!);
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

  /** How many buckets are held (for the memory-bound test). */
  get size(): number {
    return this.buckets.size;
  }
}

/** How often idle buckets are dropped. */
const SWEEP_INTERVAL_MS = 60_000;

/** Sweeps `limiters` once a minute while `app` is open; the timer keeps no process alive and stops when the app closes. */
export function sweepWhileOpen(app: ClarionApp, limiters: readonly RateLimiter[]): void {
  const timer = setInterval(() => limiters.forEach((limiter) => limiter.sweep()), SWEEP_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
