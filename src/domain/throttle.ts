/**
 * A throttled fan-out (throttlePerMinute): the dispatch enqueues its send jobs at a steady pace instead of all at once,
 * in batches of about a second's worth of pushes (at most the usual 500), each due when the pushes before it have had
 * their time at the rate (a platform's last, smaller batch takes less), so N subscribers at R a minute take N / R
 * minutes.
 */

/** How many pushes a paced send job carries: a second's worth at the rate, at least 1, at most `maxBatch`. */
export function throttleBatchSize(perMinute: number, maxBatch: number): number {
  return Math.min(maxBatch, Math.max(1, Math.ceil(perMinute / 60)));
}

/** When a paced send job is due: once the `pushesBefore` it have had their time at the rate, from `startAt`. */
export function pacedDueAt(startAt: number, pushesBefore: number, perMinute: number): number {
  return Math.round(startAt + (pushesBefore * 60_000) / perMinute);
}

/** When a throttled send to `recipients` starting at `startAt` (epoch ms) is planned to finish. */
export function plannedFinishAt(startAt: number, recipients: number, perMinute: number): number {
  return startAt + Math.ceil((recipients * 60_000) / perMinute);
}
