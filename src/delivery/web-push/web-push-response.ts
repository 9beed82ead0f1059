import type { DeliveryOutcome } from '../delivery-outcome.ts';

/**
 * A push service's answer → DeliveryOutcome, as one table (RFC 8030 §5–§8, RFC 8292 §4; docs/protocols.md 4.5). Pure.
 * The status decides, read with the service's JSON reason where it gives one: Apple's `{"reason": "BadJwtToken"}`
 * (https://developer.apple.com/documentation/usernotifications/sending-web-push-notifications-in-web-apps-and-browsers)
 * or Mozilla autopush's `{"errno": 109, …}` (https://autopush.readthedocs.io/en/latest/http.html#error-codes).
 * Reasons are "web-push:<status>", or "web-push:<status>:<reason>" with `BadJwtToken` or `errno109`.
 *
 * | answer | outcome |
 * |---|---|
 * | 200, 201, 202 | delivered (201 Created is the RFC's answer; 202 follows `Prefer: respond-async`) |
 * | 404, 410 | token_dead, token_unregistered: the subscription expired or the browser unsubscribed; the subscriber is unsubscribed |
 * | a body naming the subscription (autopush errno 102 invalid URL endpoint, 103 expired, 105 became unavailable, 106 invalid subscription), whatever the status | token_dead: token_invalid for 102, else token_unregistered |
 * | 400, 401, 403 | rejected: the request or our VAPID signature was refused (RFC 8030 §5: a bad TTL, Urgency or Topic; RFC 8292 §4: 401/403 a missing or bad JWT, or a key other than the subscription's), never the subscription's end. The subscriber stays; when every push the batch sent to one push-service origin gets the same one, the misconfiguration guard (send-batch.ts) names it as our configuration |
 * | 413 | rejected: too large (the API checks the size before accepting, so this means the service's limit is lower) |
 * | 429, 5xx | retry, after Retry-After when given |
 * | 3xx | rejected: a redirect is not followed (the endpoint is not a push service) |
 * | other | rejected |
 */
export function mapWebPushResponse(status: number, retryAfterMs: number | null, answer = ''): DeliveryOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  const said = serviceReason(answer);
  const reason = said === null ? `web-push:${status}` : `web-push:${status}:${said.word}`;
  if (status === 404 || status === 410)
    return { kind: 'token_dead', reason: 'token_unregistered', providerReason: reason };
  const gone = said?.errno === undefined ? undefined : SUBSCRIPTION_ERRNOS[said.errno];
  if (gone) return { kind: 'token_dead', reason: gone, providerReason: reason };
  if (status === 429 || status >= 500) return { kind: 'retry', reason, retryAfterMs };
  return { kind: 'rejected', reason };
}

/** autopush errnos that say the subscription itself is no more (its error table, cited above). */
const SUBSCRIPTION_ERRNOS: Record<number, 'token_invalid' | 'token_unregistered'> = {
  102: 'token_invalid',
  103: 'token_unregistered',
  105: 'token_unregistered',
  106: 'token_unregistered',
};

const REASON_WORD = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

/**
 * The service's own reason in a JSON answer: Apple's `reason` word, else autopush's `errno`; null for anything else
 * (plain text, HTML, JSON cut off at the client's excerpt). Only a short word or a number is kept, so a reason label
 * never carries free text (push-reason-label.ts).
 */
function serviceReason(answer: string): { word: string; errno?: number } | null {
  const text = answer.trim();
  if (!text.startsWith('{')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { reason, errno } = parsed as { reason?: unknown; errno?: unknown };
  if (typeof reason === 'string' && REASON_WORD.test(reason)) return { word: reason };
  if (typeof errno === 'number' && Number.isInteger(errno) && errno > 0 && errno < 10_000)
    return { word: `errno${errno}`, errno };
  return null;
}
