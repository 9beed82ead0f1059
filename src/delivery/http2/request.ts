import http2 from 'node:http2';
import type { ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';
import type { DeliveryOutcome } from '../delivery-outcome.ts';

/*
 * One HTTP/2 request of the pool (session-pool.ts), from its deadline to its answer: what a request that got no HTTP
 * answer means (Http2RequestError → a DeliveryOutcome), how a stream's answer is read, and the one timer that holds
 * every request's timeout.
 */

/**
 * What an HTTP/2 request that got no HTTP answer means, for APNs and FCM alike (both use session-pool.ts): the
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

/** Provider error bodies are a few hundred bytes; anything past this is not kept. */
const MAX_BODY_BYTES = 64 * 1024;

/** What came back on one HTTP/2 stream, known once it closed. */
export interface StreamResult {
  /** A complete response: a status, no reset, no stream error. */
  answered: boolean;
  /** 0 when no response headers arrived. */
  status: number;
  headers: IncomingHttpHeaders;
  /** UTF-8, at most 64 KiB; empty unless answered. */
  body: string;
  error: unknown;
  rstCode: number;
}

/**
 * Collects a stream's response (status, headers, a bounded body) and reports it once, when the stream closes: the
 * pool (session-pool.ts) decides from that single report whether the request was answered, can be resent, or was
 * lost with its connection.
 */
export function readStreamResponse(stream: ClientHttp2Stream, onClose: (result: StreamResult) => void): void {
  let status = 0;
  let headers: IncomingHttpHeaders = {};
  let error: unknown = null;
  const chunks: Buffer[] = [];
  let kept = 0;
  stream.on('response', (responseHeaders) => {
    headers = responseHeaders;
    status = Number(responseHeaders[':status']);
  });
  stream.on('data', (chunk: Buffer) => {
    if (kept < MAX_BODY_BYTES) {
      chunks.push(chunk);
      kept += chunk.length;
    }
  });
  stream.on('error', (streamError) => (error = streamError));
  stream.on('close', () => {
    const answered = status > 0 && stream.rstCode === http2.constants.NGHTTP2_NO_ERROR && error === null;
    // Most answers (APNs 200) have no body at all: no buffer to build for them.
    const body =
      !answered || chunks.length === 0 ? '' : Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8');
    onClose({ answered, status, headers, body, error, rstCode: stream.rstCode });
  });
}

/** Retry-After is seconds or an HTTP-date (RFC 9110 §10.2.3); a date in the past means now. */
export function parseRetryAfterMs(value: string | string[] | undefined, now: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * The pool's request timeouts (session-pool.ts) with one timer for all of them instead of one per request.
 *
 * Every deadline of a pool is "now + the same timeout", so deadlines arrive in order and a FIFO with a single timer
 * for its head holds them all. A per-request setTimeout/clearTimeout pair was one of the costs a push had over a bare
 * node:http2 client in bench/fanout-cpu.ts. A deadline is cancelled by moving the request's own `deadline`
 * (settling it, or arming it again): the queue skips entries that no longer match when it reaches them.
 */
export interface Deadlined {
  /** performance.now() at which the request times out; 0 when it has no deadline (settled). */
  deadline: number;
}

export class RequestDeadlines<Item extends Deadlined> {
  private readonly items: Item[] = [];
  private readonly at: number[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly expire: (item: Item) => void,
  ) {}

  /** (Re)starts `item`'s timeout: it expires `timeoutMs` from now unless its deadline changes first. */
  arm(item: Item): void {
    // Strictly increasing, so an item armed twice in one millisecond is told apart from its earlier entry.
    const last = this.at.length > this.head ? this.at[this.at.length - 1]! : 0;
    item.deadline = Math.max(performance.now() + this.timeoutMs, last + 1e-6);
    this.items.push(item);
    this.at.push(item.deadline);
    if (this.timer === null) this.schedule();
    // Answered requests leave the queue here too, not only when the timer fires: they are nearly all of it, and
    // holding them for the whole timeout (15 s of a fan-out's requests) grew the worker's peak RSS with the channel.
    else if (this.items.length - this.head > 2048) this.dropSettled();
  }

  /** Skips entries at the head whose item was settled or armed again, and frees the skipped part of the arrays. */
  private dropSettled(): void {
    while (this.head < this.items.length && this.items[this.head]!.deadline !== this.at[this.head]) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.at.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Cancels the timer (the pool is closing); armed items never expire after this. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.items.length = 0;
    this.at.length = 0;
    this.head = 0;
  }

  private schedule(): void {
    this.dropSettled();
    if (this.head >= this.items.length) {
      this.timer = null;
      return;
    }
    this.timer = setTimeout(() => this.sweep(), Math.max(0, this.at[this.head]! - performance.now()));
    // Requests keep the process alive through their sockets, not through this timer.
    this.timer.unref();
  }

  /**
   * Runs in the timers phase, which comes before the poll phase that reads the sockets: after the loop was blocked
   * (a starved worker), answers that arrived meanwhile still wait unread. So the overdue items are only noted here,
   * and expired in the check phase (setImmediate), after this turn's poll has read what had arrived: a request whose
   * answer came in time is settled by then and not timed out, and so not sent again
   * (tests/delivery/http2/request-deadlines.test.ts).
   */
  private sweep(): void {
    const now = performance.now();
    const overdue: Array<[Item, number]> = [];
    while (this.head < this.items.length && this.at[this.head]! <= now) {
      const item = this.items[this.head]!;
      const at = this.at[this.head]!;
      this.head += 1;
      if (item.deadline === at) overdue.push([item, at]);
    }
    if (overdue.length > 0) setImmediate(() => this.expireUnanswered(overdue));
    this.schedule();
  }

  private expireUnanswered(overdue: Array<[Item, number]>): void {
    if (this.stopped) return;
    for (const [item, at] of overdue) {
      // Answered (deadline 0) or armed again since the sweep: not expired.
      if (item.deadline !== at) continue;
      item.deadline = 0;
      this.expire(item);
    }
  }
}
