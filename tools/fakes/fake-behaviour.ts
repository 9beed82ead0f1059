/**
 * What a test can make a fake do besides following the protocol: fixed answers for chosen device tokens, bursts of
 * failures, and added latency. Shared by the APNs and FCM fakes; each supplies its own outcome type.
 *
 * Order of precedence, the same in both fakes: a request is first checked like the real service would check it
 * (auth, headers, body); only a request that passes gets an injected burst failure, else its token's configured
 * outcome, else success. So chaos never hides a malformed request behind a 503.
 */
export type Latency<Request> = number | ((request: Request) => number);

export class FakeBehaviour<Outcome, Request> {
  private readonly tokenOutcomes = new Map<string, Outcome>();
  private readonly bursts: Array<{ remaining: number; outcome: Outcome }> = [];
  private latency: Latency<Request> = 0;

  constructor(private readonly normalizeToken: (token: string) => string = (token) => token) {}

  /** Every later request to `token` gets `outcome`; `null` removes it. */
  setTokenOutcome(token: string, outcome: Outcome | null): void {
    const key = this.normalizeToken(token);
    if (outcome === null) this.tokenOutcomes.delete(key);
    else this.tokenOutcomes.set(key, outcome);
  }

  tokenOutcome(token: string): Outcome | undefined {
    return this.tokenOutcomes.get(this.normalizeToken(token));
  }

  /** The next `count` valid requests (whatever their token) get `outcome`. Bursts queue up in call order. */
  failNext(count: number, outcome: Outcome): void {
    if (!Number.isInteger(count) || count < 1)
      throw new RangeError(`failNext count must be a positive integer, got ${count}`);
    this.bursts.push({ remaining: count, outcome });
  }

  /** Consumes one injected failure, if any is queued. */
  takeInjectedFailure(): Outcome | undefined {
    const burst = this.bursts[0];
    if (!burst) return undefined;
    burst.remaining -= 1;
    if (burst.remaining === 0) this.bursts.shift();
    return burst.outcome;
  }

  get pendingFailures(): number {
    return this.bursts.reduce((sum, burst) => sum + burst.remaining, 0);
  }

  /** Delay before every answer: fixed milliseconds, or computed per request (e.g. slow for one token). */
  setLatency(latency: Latency<Request>): void {
    this.latency = latency;
  }

  latencyFor(request: Request): number {
    const ms = typeof this.latency === 'function' ? this.latency(request) : this.latency;
    return Number.isFinite(ms) && ms > 0 ? ms : 0;
  }

  reset(): void {
    this.tokenOutcomes.clear();
    this.bursts.length = 0;
    this.latency = 0;
  }
}
