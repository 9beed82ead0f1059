import http2 from 'node:http2';
import type { ClientHttp2Session, IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2';
import https from 'node:https';
import { afterEach } from 'vitest';
import { ensureFakeTls } from '../../tools/fakes/index.ts';

/**
 * Plain node:http2 / node:https clients for testing the fakes the way Clarion's delivery clients will talk to them.
 * The CA is passed explicitly, so these tests do not depend on NODE_EXTRA_CA_CERTS being set for the worker.
 */
export const fakeCa = ensureFakeTls().caPem;

const cleanups: Array<() => Promise<void> | void> = [];

/** Runs `close` after the current test, latest first, so every server and session a test opens is closed. */
export function closeAfterTest(close: () => Promise<void> | void): void {
  cleanups.push(close);
}

afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

export interface H2Response {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Opens an HTTP/2 session that is closed after the test. Resolves once the TLS/ALPN handshake is done. */
export async function openSession(
  url: string,
  options: http2.SecureClientSessionOptions = {},
): Promise<ClientHttp2Session> {
  const session = http2.connect(url, { ca: fakeCa, ...options });
  session.on('error', () => {}); // failures surface through the requests in each test
  closeAfterTest(() => closeSession(session));
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  return session;
}

export function closeSession(session: ClientHttp2Session): Promise<void> {
  if (session.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    session.once('close', () => resolve());
    // Already closing (e.g. after the server's GOAWAY): close() would be a no-op, so just wait for 'close'.
    if (!session.closed) session.close();
  });
}

/** Waits for the server's SETTINGS frame to carry the wanted limit (each new SETTINGS emits 'remoteSettings'). */
export function waitForRemoteMaxStreams(session: ClientHttp2Session, wanted: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (session.remoteSettings.maxConcurrentStreams !== wanted) return;
      session.off('remoteSettings', check);
      resolve();
    };
    session.on('remoteSettings', check);
    check();
  });
}

export function h2Request(
  session: ClientHttp2Session,
  headers: OutgoingHttpHeaders,
  body?: string | Buffer,
): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'POST', ...headers });
    let responseHeaders: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (received) => (responseHeaders = received));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () =>
      resolve({
        status: Number(responseHeaders[':status']),
        headers: responseHeaders,
        body: Buffer.concat(chunks).toString('utf8'),
      }),
    );
    stream.on('error', reject);
    // node:http2 ends GET/HEAD streams itself (no body).
    if (!stream.writableEnded) stream.end(body);
  });
}

/** An HTTP/1.1 form POST, the way fetch() reaches an OAuth token endpoint. */
export function postForm(url: string, form: Record<string, string>): Promise<H2Response> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: 'POST',
        ca: fakeCa,
        agent: false,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
