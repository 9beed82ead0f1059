/** Request and field bounds (docs/design.md 2.7). */
export const REQUEST_BODY_LIMIT_BYTES = 64 * 1024;
/**
 * The body limit of a send (POST /notifications, /notify) that names its audience: 10,000 external ids of up to 100
 * characters. Everything else in the body still has to fit REQUEST_BODY_LIMIT_BYTES (notification-audience.ts).
 */
export const AUDIENCE_REQUEST_BODY_LIMIT_BYTES = 1024 * 1024;
export const TITLE_MAX_LENGTH = 256;
export const BODY_MAX_LENGTH = 4000;
export const URL_MAX_LENGTH = 2048;
/** Longest time ahead a notification may be scheduled : 365 days. */
export const MAX_SCHEDULE_AHEAD_MS = 365 * 24 * 60 * 60 * 1000;
/** FCM keeps a message at most 28 days; APNs stores one for "a period of time": the lower bound wins. */
export const MAX_TTL_SECONDS = 28 * 24 * 60 * 60;
export const PAGE_LIMIT_DEFAULT = 20;
export const PAGE_LIMIT_MAX = 100;
/** The highest throttlePerMinute: FCM's default quota is 600,000 messages a minute per project (docs/protocols.md 3.5). */
export const MAX_THROTTLE_PER_MINUTE = 1_000_000;
