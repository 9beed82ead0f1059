/**
 * A throttled fan-out (throttlePerMinute): the dispatch enqueues its send jobs at a steady pace instead of all at once,
 * in batches of about a second's worth of pushes (at most the usual 500), each due one interval after the previous, so
 * N subscribers at R a minute take N / R minutes.
 */
export interface ThrottlePace {
  batchSize: number;
  intervalMs: number;
}

export function throttlePace(perMinute: number | null, maxBatch: number): ThrottlePace | null {
  if (perMinute === null) return null;
  const batchSize = Math.min(maxBatch, Math.max(1, Math.ceil(perMinute / 60)));
  return { batchSize, intervalMs: (batchSize * 60_000) / perMinute };
}

/** When a throttled send to `recipients` starting at `startAt` (epoch ms) is planned to finish. */
export function plannedFinishAt(startAt: number, recipients: number, perMinute: number): number {
  return startAt + Math.ceil((recipients * 60_000) / perMinute);
}
