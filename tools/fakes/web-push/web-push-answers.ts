/**
 * The bodies push services refuse a message with. RFC 8030 leaves the body of an error answer open, so each service has
 * its own; the fake speaks one of two documented ones, chosen per fake (one fake is one push-service origin):
 *
 * - `generic`: Mozilla autopush's JSON, `{"code": <status>, "errno": <n>, "error": <status text>, "message": <text>}`,
 *   with the errno of its table where it documents one
 *   (https://autopush.readthedocs.io/en/latest/http.html#error-codes): 102 invalid URL endpoint (404), 103 expired URL
 *   endpoint (410), 104 payload too large (413), 109 invalid authentication (401/403), 111 missing required header
 *   (TTL), 112 invalid TTL, 113 invalid Topic.
 * - `apple`: Apple's push service (web.push.apple.com) answers a refused VAPID JWT with `403 {"reason":"BadJwtToken"}`
 *   (https://developer.apple.com/documentation/usernotifications/sending-web-push-notifications-in-web-apps-and-browsers).
 *   Its other refusals are not documented there, so the fake answers them in plain text.
 */
export type WebPushServiceKind = 'generic' | 'apple';

/** Why the fake refuses a message: the status, the fake's own words for the record, and what the service would send. */
export interface WebPushRefusal {
  status: number;
  reason: string;
  /** autopush's errno for this refusal, where its table has one. */
  errno?: number;
  /** Apple's `reason`, where its documentation gives one. */
  appleReason?: string;
  retryAfterSeconds?: number;
  /** A body set by the test (WebPushOutcome.body), sent as JSON in place of the service's own. */
  body?: Record<string, unknown>;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  410: 'Gone',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The content type and text of the answer `service` gives for `refusal`. */
export function refusalBody(
  service: WebPushServiceKind,
  refusal: WebPushRefusal,
): { contentType: string; text: string } {
  const json = (value: unknown) => ({ contentType: 'application/json', text: JSON.stringify(value) });
  if (refusal.body) return json(refusal.body);
  if (service === 'apple')
    return refusal.appleReason
      ? json({ reason: refusal.appleReason })
      : { contentType: 'text/plain; charset=utf-8', text: refusal.reason };
  return json({
    code: refusal.status,
    ...(refusal.errno === undefined ? {} : { errno: refusal.errno }),
    error: STATUS_TEXT[refusal.status] ?? 'Error',
    message: refusal.reason,
  });
}
