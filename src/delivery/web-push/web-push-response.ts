import type { DeliveryOutcome } from '../delivery-outcome.ts';

/**
 * A push service's answer → DeliveryOutcome, as one table (RFC 8030 §5–§8, RFC 8292 §4; docs/protocols.md 4.5). Pure.
 * Push services answer with a status and free text, so the status decides. Reasons are "web-push:<status>".
 *
 * | status | outcome |
 * |---|---|
 * | 200, 201, 202 | delivered (201 Created is the RFC's answer; 202 follows `Prefer: respond-async`) |
 * | 404, 410 | token_dead, token_unregistered: the subscription expired or the browser unsubscribed; the subscriber is unsubscribed |
 * | 400, 401, 403 | token_dead, token_invalid, through the misconfiguration guard (batch-outcomes.ts): one subscription answering it was made for another VAPID key (or is broken) and is unsubscribed; a whole batch answering it means our VAPID keys or subject are wrong, so the batch fails loudly and nobody is unsubscribed |
 * | 413 | rejected: too large (the API checks the size before accepting, so this means the service's limit is lower) |
 * | 429, 5xx | retry, after Retry-After when given |
 * | 3xx | rejected: a redirect is not followed (the endpoint is not a push service) |
 * | other | rejected |
 */
export function mapWebPushResponse(status: number, retryAfterMs: number | null): DeliveryOutcome {
  const reason = `web-push:${status}`;
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 404 || status === 410) return { kind: 'token_dead', reason: 'token_unregistered', providerReason: reason };
  if (status === 400 || status === 401 || status === 403) return { kind: 'token_dead', reason: 'token_invalid', providerReason: reason };
  if (status === 429 || status >= 500) return { kind: 'retry', reason, retryAfterMs };
  return { kind: 'rejected', reason };
}
