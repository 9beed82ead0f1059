/**
 * FCM HTTP v1 error answers in Google's shape (docs/protocols.md 3.4):
 * {"error":{"code":404,"message":"...","status":"NOT_FOUND","details":[{"@type":"...FcmError","errorCode":"UNREGISTERED"}]}}
 * Clients read details[@type=FcmError].errorCode first, then error.status.
 */
const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * errorCode → HTTP status, `error.status` and a message. Statuses and codes from docs/protocols.md 3.4 (the status string
 * for SENDER_ID_MISMATCH and THIRD_PARTY_AUTH_ERROR is confirmed only by test fixtures, open question 9). Messages
 * are the ones commonly seen in real responses [unconfirmed by a primary source]; clients must not parse them.
 */
export const fcmErrorCodes = {
  INVALID_ARGUMENT: {
    httpStatus: 400,
    status: 'INVALID_ARGUMENT',
    message: 'The registration token is not a valid FCM registration token',
  },
  UNREGISTERED: { httpStatus: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.' },
  SENDER_ID_MISMATCH: { httpStatus: 403, status: 'PERMISSION_DENIED', message: 'SenderId mismatch' },
  QUOTA_EXCEEDED: { httpStatus: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for sending messages.' },
  UNAVAILABLE: { httpStatus: 503, status: 'UNAVAILABLE', message: 'The service is currently unavailable.' },
  INTERNAL: { httpStatus: 500, status: 'INTERNAL', message: 'Internal error encountered.' },
  THIRD_PARTY_AUTH_ERROR: {
    httpStatus: 401,
    status: 'UNAUTHENTICATED',
    message: 'Auth error from APNS or Web Push Service',
  },
} as const;

export type FcmErrorCode = keyof typeof fcmErrorCodes;

export interface GoogleErrorAnswer {
  httpStatus: number;
  body: string;
  headers: Record<string, string>;
}

export function googleError(
  httpStatus: number,
  status: string,
  message: string,
  details: unknown[] = [],
  headers: Record<string, string> = {},
): GoogleErrorAnswer {
  const error =
    details.length > 0 ? { code: httpStatus, message, status, details } : { code: httpStatus, message, status };
  return {
    httpStatus,
    body: JSON.stringify({ error }),
    headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
  };
}

/** An error carrying an FcmError detail, e.g. UNREGISTERED → 404 NOT_FOUND. */
export function fcmError(
  errorCode: FcmErrorCode,
  options: { message?: string; retryAfterSeconds?: number } = {},
): GoogleErrorAnswer {
  const entry = fcmErrorCodes[errorCode];
  const headers: Record<string, string> =
    options.retryAfterSeconds === undefined ? {} : { 'retry-after': String(options.retryAfterSeconds) };
  return googleError(
    entry.httpStatus,
    entry.status,
    options.message ?? entry.message,
    [{ '@type': FCM_ERROR_TYPE, errorCode }],
    headers,
  );
}

export interface FieldViolation {
  field?: string;
  description: string;
}

/**
 * A payload error: 400 INVALID_ARGUMENT with a google.rpc.BadRequest fieldViolations detail "instead of FcmError"
 * (docs/protocols.md 3.4), e.g. "Invalid value at 'message.data[0].value' (TYPE_STRING), 12" for non-string data.
 */
export function badRequest(message: string, violations: FieldViolation[], withFcmError = false): GoogleErrorAnswer {
  const details: unknown[] = [{ '@type': BAD_REQUEST_TYPE, fieldViolations: violations }];
  if (withFcmError) details.push({ '@type': FCM_ERROR_TYPE, errorCode: 'INVALID_ARGUMENT' });
  return googleError(400, 'INVALID_ARGUMENT', message, details);
}

/**
 * 401 for a missing, unknown or expired access token. Google's wording; the ErrorInfo reasons (CREDENTIALS_MISSING,
 * ACCESS_TOKEN_EXPIRED, ACCESS_TOKEN_TYPE_UNSUPPORTED) are what Google APIs send today [unconfirmed by a primary source].
 */
export function unauthenticated(
  reason: 'CREDENTIALS_MISSING' | 'ACCESS_TOKEN_EXPIRED' | 'ACCESS_TOKEN_TYPE_UNSUPPORTED',
): GoogleErrorAnswer {
  const message =
    reason === 'CREDENTIALS_MISSING'
      ? 'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.'
      : 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
  const challenge =
    reason === 'CREDENTIALS_MISSING'
      ? 'Bearer realm="https://accounts.google.com/"'
      : 'Bearer realm="https://accounts.google.com/", error="invalid_token"';
  return googleError(
    401,
    'UNAUTHENTICATED',
    message,
    [
      {
        '@type': ERROR_INFO_TYPE,
        reason,
        domain: 'googleapis.com',
        metadata: { service: 'fcm.googleapis.com', method: 'google.firebase.fcm.v1.FcmService.SendMessage' },
      },
    ],
    {
      'www-authenticate': challenge,
    },
  );
}

/** The access token's service account belongs to another project than the URL names. */
export function permissionDenied(projectId: string): GoogleErrorAnswer {
  return googleError(
    403,
    'PERMISSION_DENIED',
    `Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/${projectId}' (or it may not exist).`,
    [
      {
        '@type': ERROR_INFO_TYPE,
        reason: 'IAM_PERMISSION_DENIED',
        domain: 'cloudresourcemanager.googleapis.com',
        metadata: { permission: 'cloudmessaging.messages.create' },
      },
    ],
  );
}

export function notFound(path: string): GoogleErrorAnswer {
  return googleError(404, 'NOT_FOUND', `The requested URL ${path} was not found on this server.`);
}

/**
 * The project's per-minute quota used up (fcm-project-quota.ts): 429 RESOURCE_EXHAUSTED with a google.rpc.ErrorInfo
 * naming the per-project limit and no FcmError, as a real answer quoted in
 * https://github.com/firebase/firebase-admin-go/issues/719 reads (secondary: no Google page shows the body).
 */
export function projectQuotaExceeded(projectId: string, perMinute: number): GoogleErrorAnswer {
  return googleError(
    429,
    'RESOURCE_EXHAUSTED',
    `Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute' of service 'fcm.googleapis.com' for consumer 'project_number:${projectId}'.`,
    [
      {
        '@type': ERROR_INFO_TYPE,
        reason: 'RATE_LIMIT_EXCEEDED',
        domain: 'googleapis.com',
        metadata: {
          quota_limit_value: String(perMinute),
          consumer: `projects/${projectId}`,
          quota_metric: 'fcm.googleapis.com/send_requests',
          quota_unit: '1/min/{project}',
          service: 'fcm.googleapis.com',
          quota_location: 'global',
          quota_limit: 'SendsPerMinutePerProject',
        },
      },
    ],
  );
}
