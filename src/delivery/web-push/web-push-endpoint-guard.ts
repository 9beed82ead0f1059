import { hostOf, resolveAllowed, AddressRefusedError, type OutboundUrlPolicy } from '../../net/outbound-url-guard.ts';

/**
 * The SSRF guard for a subscription's endpoint when a browser registers (docs/design.md 2.6, the webhook guard's
 * rules): a host that is, or resolves to, a private, loopback, link-local or metadata address is refused unless the
 * operator allows private addresses. A name that does not resolve right now is let through: a failed DNS lookup must
 * not lose a subscriber, and every send resolves and checks the name again before connecting (web-push-client.ts).
 * The https rule is the token check's (src/domain/device-token.ts). Returns the refusal message, or null.
 */
export async function refusePushEndpoint(
  endpoint: string,
  policy: OutboundUrlPolicy,
  timeoutMs = LOOKUP_TIMEOUT_MS,
): Promise<string | null> {
  if (policy.allowPrivate) return null;
  const check = resolveAllowed(hostOf(new URL(endpoint)), policy).then(
    () => null,
    (error: unknown) => (error instanceof AddressRefusedError ? error.message : null),
  );
  // A slow resolver must not hold a browser's registration: past the timeout the send-time check decides, as above.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long registration waits for DNS: push-service names resolve in milliseconds. */
const LOOKUP_TIMEOUT_MS = 2_000;
