import type { DeliveryOutcome } from './delivery-outcome.ts';

/**
 * What an HTTP/2 request that got no HTTP answer means, for APNs and FCM alike (both use http2-session-pool.ts): the
 * pool rejects with an Http2RequestError, and requestFailureOutcome() turns it into a DeliveryOutcome.
 */
export type Http2FailureKind = 'timeout' | 'connect' | 'connection_lost' | 'closed' | 'invalid_request';

export class Http2RequestError extends Error {
  override name = 'Http2RequestError';
  constructor(
    readonly kind: Http2FailureKind,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
  /** The Node error code of the underlying failure (ECONNREFUSED, CERT_HAS_EXPIRED, …), if any. */
  get causeCode(): string | undefined {
    return (this.cause as NodeJS.ErrnoException | undefined)?.code;
  }
}

/** TLS verification failures: the URL or the trusted CAs are wrong, so every request would fail the same way. */
const TLS_TRUST_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export function isTlsTrustError(code: string | undefined): boolean {
  return code !== undefined && TLS_TRUST_CODES.has(code);
}

/**
 * A request that got no HTTP answer, as a DeliveryOutcome: a certificate that does not verify or a host that does not
 * exist is configuration (fatal, naming `urlVariable`); anything else (refused, reset, timeout, GOAWAY) is transient.
 */
export function requestFailureOutcome(error: unknown, provider: 'apns' | 'fcm', urlVariable: string): DeliveryOutcome {
  if (!(error instanceof Http2RequestError)) throw error;
  const code = error.causeCode;
  if (error.kind === 'connect' && code && isTlsTrustError(code)) {
    return {
      kind: 'fatal',
      reason: `${provider}:tls_${code.toLowerCase()}`,
      fix: `The TLS certificate of ${urlVariable} does not verify (${code}). Point ${urlVariable} at the real service, or, for a test server, trust its CA with NODE_EXTRA_CA_CERTS.`,
    };
  }
  if (error.kind === 'connect' && code === 'ENOTFOUND') {
    return {
      kind: 'fatal',
      reason: `${provider}:host_not_found`,
      fix: `The host in ${urlVariable} does not resolve (ENOTFOUND): check the URL.`,
    };
  }
  // Node refused to send it (a malformed header from a sendRaw caller): retrying cannot help.
  if (error.kind === 'invalid_request') return { kind: 'rejected', reason: `${provider}:invalid_request` };
  // The connection died under the push: a new one is likely fine at once (a reset, a dropped silent peer, a GOAWAY).
  if (error.kind === 'connection_lost')
    return { kind: 'retry', reason: `${provider}:connection_lost`, retryAfterMs: null, connectionLost: true };
  // Refused, unreachable, or no answer in time: the provider may be down or overloaded, so the queue's backoff.
  const reason = error.kind === 'connect' ? 'connect_failed' : error.kind;
  return { kind: 'retry', reason: `${provider}:${reason}`, retryAfterMs: null };
}

export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
