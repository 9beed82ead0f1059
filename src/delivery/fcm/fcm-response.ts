import type { DeliveryOutcome } from '../delivery-outcome.ts';

/**
 * FCM HTTP v1 status + error body → DeliveryOutcome (docs/protocols.md 3.4, 3.5; docs/design.md 3.3). Pure.
 *
 * Body: {"error":{"code","message","status","details":[{"@type":"…FcmError","errorCode":"UNREGISTERED"}, …]}}.
 * The FcmError errorCode decides first, then error.status, then the HTTP status (docs/protocols.md 3.4: "clients read
 * details[@type=…FcmError].errorCode first, then error.status"). Outcome reasons are "fcm:<code>".
 */

/** A 401 for our access token: the client refreshes it and retries once before this becomes fatal. */
export interface FcmRefreshToken {
  kind: 'refresh_token';
  reason: string;
}

/**
 * A 429 for the project's quota (docs/protocols.md 3.5: per project and minute; FCM answers 429 to every message of the
 * project "until the quota is refilled in the following minute"): the client holds back every message of the project
 * until `retryAfterMs` has passed, whichever batch it belongs to, instead of letting each one meet the same 429.
 */
export interface FcmProjectQuota {
  kind: 'project_quota';
  reason: string;
  retryAfterMs: number;
}

export type FcmResponseOutcome = DeliveryOutcome | FcmRefreshToken | FcmProjectQuota;

export interface FcmResponse {
  status: number;
  body: string;
  /** Retry-After already converted to a delay, or null. */
  retryAfterMs: number | null;
  /** True on the attempt after a 401 already forced a token refresh. */
  afterRefresh: boolean;
}

export interface FcmErrorBody {
  errorCode: string | null;
  status: string | null;
  message: string;
  /** google.rpc.BadRequest fieldViolations[].field, e.g. "message.token", "message.data[0].value". */
  violatedFields: string[];
  /**
   * Whose quota a google.rpc.ErrorInfo names (metadata quota_unit "1/min/{project}", quota_limit
   * "SendsPerMinutePerProject", as in a real answer quoted in https://github.com/firebase/firebase-admin-go/issues/719):
   * 'project', 'other' for another unit, null without one.
   */
  quotaScope: 'project' | 'other' | null;
}

/** docs/protocols.md 3.5: 429 without Retry-After → wait 60 s (and at least a minute for the message-rate quota). */
export const FCM_QUOTA_DEFAULT_RETRY_MS = 60_000;
/** docs/protocols.md 3.5: 5xx → back off, "never sooner than 10 s" when FCM gives no Retry-After. */
export const FCM_SERVER_ERROR_MIN_RETRY_MS = 10_000;

const ACCOUNT_FILE = 'CLARION_FCM_SERVICE_ACCOUNT_FILE';

export function parseFcmError(body: string): FcmErrorBody {
  const result: FcmErrorBody = { errorCode: null, status: null, message: '', violatedFields: [], quotaScope: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return result;
  }
  const error = (parsed as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return result;
  const { status, message, details } = error as { status?: unknown; message?: unknown; details?: unknown };
  if (typeof status === 'string') result.status = status;
  if (typeof message === 'string') result.message = message;
  for (const detail of Array.isArray(details) ? (details as unknown[]) : []) {
    if (typeof detail !== 'object' || detail === null) continue;
    const { '@type': type, errorCode, fieldViolations, metadata } = detail as Record<string, unknown>;
    if (typeof type !== 'string') continue;
    if (type.endsWith('google.firebase.fcm.v1.FcmError') && typeof errorCode === 'string') result.errorCode = errorCode;
    if (type.endsWith('google.rpc.ErrorInfo') && typeof metadata === 'object' && metadata !== null) {
      const { quota_unit: unit, quota_limit: limit } = metadata as Record<string, unknown>;
      if (typeof unit === 'string' || typeof limit === 'string') {
        result.quotaScope =
          String(unit ?? '').includes('{project}') || /PerProject$/.test(String(limit ?? '')) ? 'project' : 'other';
      }
    }
    if (type.endsWith('google.rpc.BadRequest') && Array.isArray(fieldViolations)) {
      for (const violation of fieldViolations as Array<{ field?: unknown }>) {
        if (typeof violation?.field === 'string') result.violatedFields.push(violation.field);
      }
    }
  }
  return result;
}

/**
 * INVALID_ARGUMENT is about the token when a field violation names message.token, or when the message says so ("The
 * registration token is not a valid FCM registration token", docs/protocols.md 3.4). Payload errors name another field or
 * come without FcmError; those are `rejected`, never a deleted token (docs/protocols.md 3.5: delete on INVALID_ARGUMENT
 * only when the payload is known to be good).
 */
export function isTokenProblem(error: FcmErrorBody): boolean {
  if (error.violatedFields.some((field) => field === 'message.token')) return true;
  return error.violatedFields.length === 0 && /registration token/i.test(error.message);
}

/**
 * The project's quota, not one target's: an ErrorInfo naming the per-project limit, or a bare RESOURCE_EXHAUSTED (the
 * answer docs/protocols.md 3.5 gives for the project quota). An FcmError QUOTA_EXCEEDED without the per-project limit
 * is "the message target"'s limit (a device's or a topic's rate, https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode):
 * that token alone waits.
 */
function isProjectQuota(error: FcmErrorBody): boolean {
  if (error.quotaScope !== null) return error.quotaScope === 'project';
  return error.errorCode === null;
}

export function mapFcmResponse(response: FcmResponse): FcmResponseOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  const error = parseFcmError(response.body);
  const code = error.errorCode ?? error.status ?? `HTTP${status}`;
  const reason = `fcm:${code}`;
  const retry = (fallbackMs: number | null): DeliveryOutcome => ({
    kind: 'retry',
    reason,
    retryAfterMs: response.retryAfterMs ?? fallbackMs,
  });
  const fatal = (fix: string): DeliveryOutcome => ({ kind: 'fatal', reason, fix });

  switch (code) {
    case 'UNREGISTERED':
      return { kind: 'token_dead', reason: 'token_unregistered', providerReason: code };
    case 'SENDER_ID_MISMATCH':
      // The token was issued to another Firebase project's sender, so this project can never reach it: unsubscribe
      // (docs/design.md 3.3 "invalid token"). Not fatal: one stray token from a test build must not block every batch it
      // is in. A wrong CLARION_FCM_SERVICE_ACCOUNT_FILE would show as *every* token failing this way.
      return { kind: 'token_dead', reason: 'token_invalid', providerReason: code };
    case 'INVALID_ARGUMENT':
      return isTokenProblem(error)
        ? { kind: 'token_dead', reason: 'token_invalid', providerReason: code }
        : { kind: 'rejected', reason };
    case 'QUOTA_EXCEEDED':
    case 'RESOURCE_EXHAUSTED':
      return isProjectQuota(error)
        ? { kind: 'project_quota', reason, retryAfterMs: response.retryAfterMs ?? FCM_QUOTA_DEFAULT_RETRY_MS }
        : retry(FCM_QUOTA_DEFAULT_RETRY_MS);
    case 'UNAVAILABLE':
    case 'INTERNAL':
      return retry(FCM_SERVER_ERROR_MIN_RETRY_MS);
    case 'THIRD_PARTY_AUTH_ERROR':
    case 'APNS_AUTH_ERROR':
      return fatal(
        `FCM could not authenticate with APNs or Web Push for this app (${code}). In the Firebase console of the project in ${ACCOUNT_FILE} (Project settings → Cloud Messaging), upload a valid APNs auth key or Web Push certificate.`,
      );
    case 'UNAUTHENTICATED':
      if (!response.afterRefresh) return { kind: 'refresh_token', reason };
      return fatal(
        `FCM refused a freshly issued access token (401 UNAUTHENTICATED). Check that ${ACCOUNT_FILE} is a current key of a service account of this Firebase project (the key may have been deleted).`,
      );
    case 'PERMISSION_DENIED':
      return fatal(
        `FCM refused the service account (403 PERMISSION_DENIED: ${error.message || 'no message'}). Check that ${ACCOUNT_FILE} belongs to the Firebase project of the app (its project_id is the one sent to), that the Firebase Cloud Messaging API is enabled, and that the account has the "Firebase Cloud Messaging API Admin" role.`,
      );
    case 'NOT_FOUND':
      // A bare NOT_FOUND for the token (older answers, fb-admin-node maps it to "not registered") reads "Requested
      // entity was not found."; any other 404 means the URL or project does not exist.
      if (/requested entity was not found/i.test(error.message))
        return { kind: 'token_dead', reason: 'token_unregistered', providerReason: code };
      return fatal(
        `FCM answered 404 for the send URL: check CLARION_FCM_URL (https://fcm.googleapis.com) and the project_id in ${ACCOUNT_FILE}.`,
      );
    default:
      return byStatus(status, reason, response, retry, fatal);
  }
}

/** UNSPECIFIED_ERROR, codes added later, and non-JSON answers (a proxy's page): decide by HTTP status. */
function byStatus(
  status: number,
  reason: string,
  response: FcmResponse,
  retry: (fallbackMs: number | null) => DeliveryOutcome,
  fatal: (fix: string) => DeliveryOutcome,
): FcmResponseOutcome {
  if (status === 429) return retry(FCM_QUOTA_DEFAULT_RETRY_MS);
  if (status >= 500) return retry(FCM_SERVER_ERROR_MIN_RETRY_MS);
  if (status === 401)
    return response.afterRefresh
      ? fatal(`FCM refused the access token (401). Check ${ACCOUNT_FILE}.`)
      : { kind: 'refresh_token', reason };
  if (status === 403)
    return fatal(
      `FCM refused the request (403). Check that ${ACCOUNT_FILE} belongs to the app's Firebase project and may send messages.`,
    );
  if (status === 404)
    return fatal(
      `FCM answered 404 for the send URL: check CLARION_FCM_URL (https://fcm.googleapis.com) and the project_id in ${ACCOUNT_FILE}.`,
    );
  return { kind: 'rejected', reason };
}
