/**
 * A web subscriber's stored token (the PushSubscription JSON that src/domain/device-token.ts checked and stored) read
 * back for sending. Null for anything that is not one: such a token can never be delivered to.
 */
export interface StoredSubscription {
  endpoint: URL;
  keys: { p256dh: string; auth: string };
}

export function parseStoredSubscription(token: string): StoredSubscription | null {
  try {
    const parsed = JSON.parse(token) as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
    const { p256dh, auth } = parsed.keys ?? {};
    if (typeof parsed.endpoint !== 'string' || typeof p256dh !== 'string' || typeof auth !== 'string') return null;
    const endpoint = new URL(parsed.endpoint);
    return endpoint.protocol === 'https:' ? { endpoint, keys: { p256dh, auth } } : null;
  } catch {
    return null;
  }
}

/** The push-service origin of a stored subscription (the misconfiguration guard judges each alone); null when unreadable. */
export function subscriptionOrigin(token: string | undefined): string | null {
  return token === undefined ? null : (parseStoredSubscription(token)?.endpoint.origin ?? null);
}
