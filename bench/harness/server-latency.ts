/**
 * The server's own view of a phase's request latency, from its `clarion_http_request_duration_seconds` histogram
 * (src/metrics/clarion-metrics.ts): Fastify's time from reading a request to finishing its answer. The load generator's
 * p99 adds what the server never sees — the request waiting in the socket for a busy event loop, and the load
 * generator's own process waiting for a core — so the two side by side tell a slow server from a crowded machine.
 * Histograms have fixed buckets: the figures are "this share within N ms" and the bucket that holds the p99.
 */
export type BucketCounts = Map<number, number>;

/** Cumulative counts by upper bound (seconds) of one route's answers with `status`, from a /metrics text. */
export function routeBuckets(metricsText: string, method: string, route: string, status: number): BucketCounts {
  const counts: BucketCounts = new Map();
  const pattern = /^clarion_http_request_duration_seconds_bucket\{([^}]*)\} (\S+)$/gm;
  for (const match of metricsText.matchAll(pattern)) {
    const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((label) => [label[1], label[2]]));
    if (labels.method !== method || labels.route !== route || labels.status_code !== String(status)) continue;
    counts.set(labels.le === '+Inf' ? Infinity : Number(labels.le), Number(match[2]));
  }
  return counts;
}

/** Between two readings: how many answers, the share within each bound, and the smallest bound holding the p99 (ms). */
export function phaseLatency(
  before: BucketCounts,
  after: BucketCounts,
): { answers: number; p99AtMostMs: number | null; shareWithinMs: Record<string, number> } {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const inPhase = (bound: number) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0);
  const answers = bounds.length > 0 ? inPhase(Infinity) : 0;
  const shareWithinMs: Record<string, number> = {};
  let p99AtMostMs: number | null = null;
  for (const bound of bounds) {
    if (bound === Infinity || answers === 0) continue;
    const share = inPhase(bound) / answers;
    shareWithinMs[String(bound * 1000)] = Math.round(share * 10_000) / 10_000;
    if (p99AtMostMs === null && share >= 0.99) p99AtMostMs = bound * 1000;
  }
  return { answers, p99AtMostMs, shareWithinMs };
}
