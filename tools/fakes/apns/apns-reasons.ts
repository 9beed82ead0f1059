/**
 * Every APNs error reason the fake can answer, with its HTTP status (docs/protocols.md 1.5, which merges Apple's table as
 * implemented by APNSwift, pushy, sideshow/apns2 and apns2(npm)). One catalog, so a reason's status is defined once.
 */
export const apnsReasons = {
  BadCollapseId: 400,
  BadDeviceToken: 400,
  BadExpirationDate: 400,
  BadMessageId: 400,
  BadPriority: 400,
  BadTopic: 400,
  DeviceTokenNotForTopic: 400,
  DuplicateHeaders: 400,
  IdleTimeout: 400,
  InvalidPushType: 400,
  MissingDeviceToken: 400,
  MissingTopic: 400,
  PayloadEmpty: 400,
  TopicDisallowed: 400,
  /**
   * Broadcast and channel management (docs/protocols.md 2.5, 1.5). Apple's names, read second hand; the statuses of
   * the channel errors are observed rather than documented (docs/protocols.md 7, q2), so the fake answers 400 for all.
   */
  MissingChannelId: 400,
  BadChannelId: 400,
  ChannelNotRegistered: 400,
  CannotCreateChannelConfig: 400,
  MissingPushType: 400,
  /**
   * Not in Apple's table: what APNs answers to a body that is not JSON is an open question (docs/protocols.md 7, q8).
   * The fake still rejects it, with a reason no client treats as retryable, so a client bug shows up in tests.
   */
  BadPayload: 400,
  BadCertificate: 403,
  BadCertificateEnvironment: 403,
  ExpiredProviderToken: 403,
  Forbidden: 403,
  InvalidProviderToken: 403,
  MissingProviderToken: 403,
  UnrelatedKeyIdInToken: 403,
  BadEnvironmentKeyIdInToken: 403,
  /** Spelling seen by APNSwift in real responses; which one Apple sends today is open (docs/protocols.md 7, q1). */
  BadEnvironmentKeyInToken: 403,
  BadPath: 404,
  MethodNotAllowed: 405,
  ExpiredToken: 410,
  Unregistered: 410,
  PayloadTooLarge: 413,
  TooManyProviderTokenUpdates: 429,
  TooManyRequests: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503,
  Shutdown: 503,
} as const satisfies Record<string, number>;

export type ApnsReason = keyof typeof apnsReasons;

export function isApnsReason(value: string): value is ApnsReason {
  return Object.hasOwn(apnsReasons, value);
}

/**
 * The error body: `{"reason":"..."}`, plus for 410 the time in epoch **milliseconds** at which APNs last confirmed
 * the token was no longer valid for the topic (docs/protocols.md 1.4; sideshow/apns2 divides it by 1000, pushy writes
 * toEpochMilli).
 */
export function apnsErrorBody(reason: string, status: number, timestampMs?: number): string {
  return JSON.stringify(status === 410 ? { reason, timestamp: timestampMs } : { reason });
}
