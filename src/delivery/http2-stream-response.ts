import http2 from 'node:http2';
import type { ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';

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
 * pool (http2-session-pool.ts) decides from that single report whether the request was answered, can be resent, or was
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
