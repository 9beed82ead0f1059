/**
 * Every error the API can answer with, in one place (docs/design.md 2.1). Handlers throw `new ApiError(code)`; the
 * message here is the public default, and docs/errors.md is checked against this table by a test.
 * Codes are part of the interface: never rename one, add a new one.
 */
export const errorCatalog = {
  bad_request: {
    status: 400,
    message: 'The request is malformed.',
    when: 'the HTTP request itself is malformed (bad Content-Length, a NUL or other forbidden byte in a header, a request line that is not HTTP, a URL that is not valid UTF-8)',
  },
  invalid_json: {
    status: 400,
    message: 'The request body is not valid JSON.',
    when: 'the body cannot be parsed as JSON, or is empty where JSON is required',
  },
  validation_failed: {
    status: 400,
    message: 'Some fields are missing or wrong.',
    when: 'a field is missing, of the wrong type or out of range; `details.fields` lists `{field, message}` pairs',
  },
  invalid_receipt: {
    status: 400,
    message: 'This receipt is not one Clarion issued, or what it names no longer exists.',
    when: 'POST /receipts is given a receipt that is forged, altered or truncated, or whose notification or subscriber is gone (the subscriber erased with its user); nothing is counted',
  },
  unauthorized: {
    status: 401,
    message:
      'This API key is not valid: it is unknown, revoked or expired. Send an active one (Authorization: Bearer clr_sk_…).',
    when: "the Authorization header is missing, does not use the Bearer scheme or holds no value of an API key's shape (each said in the message, with the expected form), or the key is unknown, revoked or expired (this message, the same for all three, so a caller learns nothing about stored keys); on POST /relays/github-actions, the relay is unknown or deleted or the body's signature is not its secret's (one message for all); the response carries `WWW-Authenticate: Bearer`",
  },
  forbidden: {
    status: 403,
    message: 'This key may not do that.',
    when: 'the key kind may not call the endpoint, e.g. a publishable key sending a notification',
  },
  channel_not_allowed: {
    status: 403,
    message: "This key's channel scope does not include that channel.",
    when: 'the key is scoped to channels and the request names another one, whether or not that channel exists',
  },
  csrf_failed: {
    status: 403,
    message: 'This request needs the X-CSRF-Token header of your dashboard session; reload the page and try again.',
    when: 'a dashboard session (cookie) request that changes something lacks the X-CSRF-Token header the session was given, carries a wrong one, or comes from another site (`Sec-Fetch-Site: cross-site`)',
  },
  not_found: {
    status: 404,
    message: 'Not found.',
    when: 'no such route, or no such resource in this account (also for resources in channels outside the key scope)',
  },
  channel_not_found: {
    status: 404,
    message: 'No channel with that code in this account.',
    when: 'the channel code is allowed for the key but does not exist in its account',
  },
  request_timeout: {
    status: 408,
    message: 'The request took too long to arrive; send it again.',
    when: "the client did not finish sending the request line and headers within the HTTP server's timeout (a stalled or very slow connection); answered before any route runs",
  },
  conflict: {
    status: 409,
    message: 'That conflicts with the current state.',
    when: 'a channel code is already taken in the account, or a request with the same Idempotency-Key is still being handled',
  },
  not_cancelable: {
    status: 409,
    message: 'Only a scheduled notification or Live Activity can be canceled.',
    when: 'canceling a notification that is already being sent or was sent, or a Live Activity that already started, ended or was canceled',
  },
  idempotency_mismatch: {
    status: 409,
    message: 'This Idempotency-Key was used with a different request.',
    when: 'the same Idempotency-Key is sent again within 24 hours with another body or to another endpoint',
  },
  idempotency_not_replayable: {
    status: 409,
    message:
      'The request with this Idempotency-Key succeeded, but its response showed a secret, which is never kept for a replay.',
    when: 'the same Idempotency-Key and request are sent again within 24 hours to a route whose response shows a secret (POST /keys, key rotation, POST /webhooks, webhook secret rotation): the first request did succeed; find what it made in the list, and rotate the secret if its response was lost',
  },
  app_required: {
    status: 409,
    message:
      'This instance requires each account to bring its own app: create one with your iOS, Android or web credentials (POST /api/v1/apps) and bind the channel to it.',
    when: 'sending a notification or starting a Live Activity on a channel that uses the built-in app while the operator set CLARION_REQUIRE_OWN_APP=true (docs/apps.md); nothing is stored or charged',
  },
  activity_ended: {
    status: 409,
    message: 'This Live Activity has ended; start a new one.',
    when: 'updating or ending a Live Activity, or reporting a token for one, after it ended: by POST /live-activities/{id}/end, or 8 hours after its start, when iOS ends every Live Activity; or after it was canceled before its start',
  },
  activity_not_started: {
    status: 409,
    message:
      'This Live Activity is scheduled and has not started, so there is nothing to end: cancel it with POST /api/v1/live-activities/{id}/cancel.',
    when: 'ending a scheduled Live Activity (by id or by its stream key), or reporting a token for one, before its sendAt',
  },
  payload_too_large: {
    status: 413,
    message: 'The payload is too large.',
    when: 'the request body is over 64 KiB, or the rendered platform payload is over its limit; `details` say which',
  },
  unsupported_media_type: {
    status: 415,
    message: 'Send the body as application/json.',
    when: 'a body is sent with a Content-Type other than application/json',
  },
  quota_exceeded: {
    status: 429,
    message: "This month's notification quota is used up.",
    when: 'the account has spent its monthly plan quota; `details` are `{plan, limit, used, resetsAt}` and nothing was sent or stored',
  },
  rate_limited: {
    status: 429,
    message: 'Too many requests for this key; slow down.',
    when: 'a request rate is exceeded (per secret key or session; per client address and per key for publishable keys; sign-in attempts); the `Retry-After` header says how many seconds to wait',
  },
  headers_too_large: {
    status: 431,
    message: 'The request headers are over the 16 KiB limit.',
    when: 'the request line and headers together are over 16 KiB (Node.js `--max-http-header-size`), e.g. a huge cookie; answered before any route runs',
  },
  internal_error: {
    status: 500,
    message: 'Something went wrong on our side. Quote the requestId when reporting it.',
    when: 'an unexpected failure; the cause goes only to the log, with the request id',
  },
  unavailable: {
    status: 503,
    message: 'The service is temporarily unavailable; try again shortly.',
    when: 'storage is unreachable, full or read-only, PostgreSQL kept aborting the request for a deadlock, or the server is shutting down',
  },
} as const;

export type ErrorCode = keyof typeof errorCatalog;
export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];
