import type { DeliveryOutcome } from '../delivery-outcome.ts';

/**
 * APNs status + reason → DeliveryOutcome, as one table (docs/protocols.md 1.4, 1.5; docs/design.md 3.3). Pure.
 *
 * Outcome `reason` strings are "apns:<Reason>" so logs and events say which provider answered and what it said.
 */

/** A response the client handles itself before it becomes an outcome: renew the JWT and retry once. */
export interface ApnsRenewToken {
  kind: 'renew_token';
  reason: 'apns:ExpiredProviderToken';
}

export type ApnsResponseOutcome = DeliveryOutcome | ApnsRenewToken;

export interface ApnsResponse {
  status: number;
  /** The `reason` from the JSON error body, or null when there was none. */
  reason: string | null;
  /** Retry-After already converted to a delay, or null when absent. */
  retryAfterMs: number | null;
  /** A 410 body's `timestamp`: epoch ms when APNs last knew the token invalid (docs/protocols.md 1.4); null otherwise. */
  timestamp?: number | null;
}

/**
 * Apple: "After 15 minutes, you can retry JSON payloads that receive response status codes that begin with 5XX"
 * (docs/protocols.md 1.5; https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns).
 * So a 500 or 503 without a longer Retry-After comes back in 15 minutes, never in the queue's first seconds.
 */
export const APNS_SERVER_ERROR_RETRY_MS = 15 * 60 * 1000;

const KEY_VARIABLES = 'CLARION_APNS_KEY_FILE, CLARION_APNS_KEY_ID and CLARION_APNS_TEAM_ID';

type Rule =
  | { kind: 'delivered' }
  | { kind: 'token_dead'; reason: 'token_unregistered' | 'token_invalid' }
  | { kind: 'retry' }
  | { kind: 'renew_token' }
  | { kind: 'rejected' }
  | { kind: 'fatal'; fix: string };

const fatal = (fix: string): Rule => ({ kind: 'fatal', fix });
const topicFix = (what: string): Rule =>
  fatal(
    `APNs ${what}. Set CLARION_APNS_TOPIC to the app's bundle id exactly (e.g. com.example.app), and make sure the key in CLARION_APNS_KEY_FILE may push to that app.`,
  );

/** Every reason in docs/protocols.md 1.5 (plus the BadEnvironmentKeyInToken spelling), and what Clarion does with it. */
export const apnsReasonRules: Readonly<Record<string, Rule>> = {
  // 400
  BadCollapseId: { kind: 'rejected' },
  // Malformed, or a token from the other environment. docs/design.md 3.3: unsubscribe. (If *every* token answers this,
  // CLARION_APNS_URL points at the wrong environment; see the report on a batch-level guard.)
  BadDeviceToken: { kind: 'token_dead', reason: 'token_invalid' },
  BadExpirationDate: { kind: 'rejected' },
  BadMessageId: { kind: 'rejected' },
  BadPriority: { kind: 'rejected' },
  BadTopic: topicFix('rejected apns-topic as malformed (400 BadTopic)'),
  // The token was registered by another app (docs/design.md 3.3: the subscriber is unsubscribed).
  DeviceTokenNotForTopic: { kind: 'token_dead', reason: 'token_invalid' },
  DuplicateHeaders: { kind: 'rejected' },
  // The connection sat idle too long on Apple's side; a new request on a fresh connection works.
  IdleTimeout: { kind: 'retry' },
  InvalidPushType: { kind: 'rejected' },
  // The client never sends an empty token (it refuses non-hex tokens itself), so this means the token was empty.
  MissingDeviceToken: { kind: 'token_dead', reason: 'token_invalid' },
  MissingTopic: topicFix('requires apns-topic with token authentication (400 MissingTopic)'),
  PayloadEmpty: { kind: 'rejected' },
  TopicDisallowed: topicFix('does not allow pushes to this topic (400 TopicDisallowed)'),
  // Broadcast and channel management (docs/protocols.md 2.5). A channel APNs does not know is to a broadcast what a
  // dead token is to a push: nothing sent to it arrives; the others are requests Clarion built wrong.
  MissingChannelId: { kind: 'rejected' },
  BadChannelId: { kind: 'rejected' },
  ChannelNotRegistered: { kind: 'token_dead', reason: 'token_invalid' },
  // The app has as many channels as Apple allows (10,000 per environment): the broadcast falls back to tokens.
  CannotCreateChannelConfig: { kind: 'rejected' },
  MissingPushType: { kind: 'rejected' },
  // 403
  BadCertificate: fatal(
    `APNs answered BadCertificate. Clarion uses token authentication: check that CLARION_APNS_URL is Apple's APNs origin (https://api.push.apple.com or https://api.sandbox.push.apple.com) and that ${KEY_VARIABLES} are set.`,
  ),
  BadCertificateEnvironment: fatal(
    'APNs answered BadCertificateEnvironment: CLARION_APNS_URL points at the other environment (production https://api.push.apple.com vs sandbox https://api.sandbox.push.apple.com) than the credentials.',
  ),
  ExpiredProviderToken: { kind: 'renew_token' },
  Forbidden: fatal(
    `APNs refused the key (403 Forbidden): it may have been revoked or belong to another account. Create a new APNs key in the Apple developer account and update ${KEY_VARIABLES}.`,
  ),
  InvalidProviderToken: fatal(
    `APNs rejected the provider token (403 InvalidProviderToken). Check that ${KEY_VARIABLES} belong together (the .p8 file, its 10-character Key ID, and the Team ID of the account that created it), and that the key may push to CLARION_APNS_TOPIC.`,
  ),
  MissingProviderToken: fatal(`APNs received no provider token (403 MissingProviderToken). Set ${KEY_VARIABLES}.`),
  UnrelatedKeyIdInToken: fatal(
    `APNs saw a key unrelated to the one first used on this connection (403 UnrelatedKeyIdInToken). Use one key per Clarion instance (${KEY_VARIABLES}) and restart after changing it.`,
  ),
  BadEnvironmentKeyIdInToken: fatal(
    'The APNs key is for the other environment (403 BadEnvironmentKeyIdInToken). Keys created since February 2025 are sandbox-only or production-only: set CLARION_APNS_URL to match the key (https://api.push.apple.com or https://api.sandbox.push.apple.com) or use a key for this environment in CLARION_APNS_KEY_FILE / CLARION_APNS_KEY_ID.',
  ),
  BadEnvironmentKeyInToken: fatal(
    'The APNs key is for the other environment (403 BadEnvironmentKeyInToken). Keys created since February 2025 are sandbox-only or production-only: set CLARION_APNS_URL to match the key (https://api.push.apple.com or https://api.sandbox.push.apple.com) or use a key for this environment in CLARION_APNS_KEY_FILE / CLARION_APNS_KEY_ID.',
  ),
  // 404, 405: the request did not reach the APNs API as sent, so nothing will work until the URL is fixed.
  BadPath: fatal(
    'APNs answered 404 BadPath: CLARION_APNS_URL must be the bare APNs origin (https://api.push.apple.com or https://api.sandbox.push.apple.com), without a path.',
  ),
  MethodNotAllowed: fatal(
    'APNs answered 405 MethodNotAllowed: CLARION_APNS_URL must reach APNs directly (a proxy in between changed the request).',
  ),
  // 410
  ExpiredToken: { kind: 'token_dead', reason: 'token_unregistered' },
  Unregistered: { kind: 'token_dead', reason: 'token_unregistered' },
  // 413
  PayloadTooLarge: { kind: 'rejected' },
  // 429: TooManyProviderTokenUpdates means our renewal was throttled; the token in use keeps working, so retry.
  TooManyProviderTokenUpdates: { kind: 'retry' },
  TooManyRequests: { kind: 'retry' },
  // 500, 503
  InternalServerError: { kind: 'retry' },
  ServiceUnavailable: { kind: 'retry' },
  Shutdown: { kind: 'retry' },
};

/** For a reason APNs may add later: decide by status alone, on the side of not deleting tokens. */
function ruleForStatus(status: number): Rule {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'token_dead', reason: 'token_unregistered' };
  if (status === 429 || status >= 500) return { kind: 'retry' };
  if (status === 401 || status === 403)
    return fatal(
      `APNs refused the credentials (${status}). Check ${KEY_VARIABLES}, CLARION_APNS_TOPIC and CLARION_APNS_URL.`,
    );
  return { kind: 'rejected' };
}

export function mapApnsResponse(response: ApnsResponse): ApnsResponseOutcome {
  if (response.status === 200) return { kind: 'delivered' };
  const reason = response.reason ?? `HTTP${response.status}`;
  const rule =
    (response.reason !== null && Object.hasOwn(apnsReasonRules, response.reason)
      ? apnsReasonRules[response.reason]
      : undefined) ?? ruleForStatus(response.status);
  const label = `apns:${reason}`;
  switch (rule.kind) {
    case 'delivered':
      return { kind: 'delivered' };
    case 'token_dead':
      return {
        kind: 'token_dead',
        reason: rule.reason,
        providerReason: reason,
        ...(response.status === 410 ? { invalidSince: response.timestamp ?? null } : {}),
      };
    case 'retry':
      return {
        kind: 'retry',
        reason: label,
        retryAfterMs:
          response.status >= 500
            ? Math.max(response.retryAfterMs ?? 0, APNS_SERVER_ERROR_RETRY_MS)
            : response.retryAfterMs,
      };
    case 'renew_token':
      return { kind: 'renew_token', reason: 'apns:ExpiredProviderToken' };
    case 'rejected':
      return { kind: 'rejected', reason: label };
    case 'fatal':
      return { kind: 'fatal', reason: label, fix: rule.fix };
  }
}

/** The `reason` of an APNs error body `{"reason": "...", "timestamp": ...}`; null for an empty or foreign body. */
export function parseApnsReason(body: string): string | null {
  return parseApnsErrorBody(body).reason;
}

/** `reason` and (410 only) `timestamp`, epoch ms, of an APNs error body; nulls for an empty or foreign body. */
export function parseApnsErrorBody(body: string): { reason: string | null; timestamp: number | null } {
  const result = { reason: null as string | null, timestamp: null as number | null };
  if (body.trim() === '') return result;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) {
      const { reason, timestamp } = parsed as { reason?: unknown; timestamp?: unknown };
      if (typeof reason === 'string') result.reason = reason;
      if (typeof timestamp === 'number' && Number.isFinite(timestamp)) result.timestamp = timestamp;
    }
  } catch {
    // A proxy's HTML error page, say: fall back to the status.
  }
  return result;
}
