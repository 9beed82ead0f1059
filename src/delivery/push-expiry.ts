/**
 * When a notification's pushes expire. `ttlSeconds` counts from the notification's due time (its sendAt, the local
 * time of its zone, or its acceptance), once: the dispatch fixes the absolute moment in each send job, so a push
 * retried hours later is neither sent after it nor handed to the provider with a fresh TTL (apns-expiration and FCM
 * `ttl` carry what is left of it, apns-payload.ts and fcm-message.ts).
 */

/** Epoch ms the pushes of a notification due at `dueAt` expire; null without ttlSeconds (the providers' maximum). */
export function pushExpiresAt(ttlSeconds: number | null, dueAt: number): number | null {
  return ttlSeconds === null ? null : dueAt + ttlSeconds * 1000;
}

/**
 * A push past its expiry is not sent (it fails as `expired`). ttlSeconds 0 is "now or never" for the providers
 * (apns-expiration 0, FCM "0s"): the first round goes out whenever the dispatch runs, and nothing is retried.
 */
export function isPushExpired(input: {
  expiresAt: number | null;
  ttlSeconds: number | null;
  round: number;
  now: number;
}): boolean {
  if (input.expiresAt === null || input.ttlSeconds === null) return false;
  if (input.ttlSeconds === 0) return input.round > 0;
  return input.now > input.expiresAt;
}
