import type { IncomingMessage } from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { Http2SecureServer, Http2ServerRequest, ServerHttp2Session, Settings } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { ensureFakeTls } from './fake-tls.ts';

/**
 * The part both fakes share: an HTTP/2 server over TLS on loopback that keeps track of every session, socket and
 * timer it owns, so close() leaves nothing open (the test harness fails on leaked handles, docs/develop.md, convention 6).
 */
export interface ListenOptions {
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Certificate and key; default the shared fake CA's localhost certificate (ensureFakeTls()). */
  tls?: { certPem: string; keyPem: string };
}

export interface SecureHttp2Listener<S = Http2SecureServer> {
  readonly server: S;
  /** e.g. https://127.0.0.1:41234, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** HTTP/2 sessions currently open. */
  openSessions(): ServerHttp2Session[];
  /** A timer that close() cancels (resolving early), for latency injection. */
  delay(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * HTTP/2 over TLS; ALPN decides the protocol (RFC 7301): `h2` for a client that offers it, and with `allowHTTP1`
 * `http/1.1` for one that does not.
 */
export async function listenSecureHttp2(
  options: ListenOptions & { allowHTTP1: boolean; settings?: Settings },
  attach: (server: Http2SecureServer) => void,
): Promise<SecureHttp2Listener> {
  const tls = options.tls ?? ensureFakeTls();
  const server = http2.createSecureServer({
    cert: tls.certPem,
    key: tls.keyPem,
    allowHTTP1: options.allowHTTP1,
    minVersion: 'TLSv1.2', // docs/protocols.md 1.1: HTTP/2 over TLS 1.2 or later
    ...(options.settings ? { settings: options.settings } : {}),
  });
  return listenTracked(server, options, attach);
}

/** HTTP/1.1 over TLS only (ALPN offers `http/1.1` alone): a service without HTTP/2. */
export async function listenSecureHttp1(
  options: ListenOptions,
  attach: (server: https.Server) => void,
): Promise<SecureHttp2Listener<https.Server>> {
  const tls = options.tls ?? ensureFakeTls();
  const server = https.createServer({
    cert: tls.certPem,
    key: tls.keyPem,
    minVersion: 'TLSv1.2',
    ALPNProtocols: ['http/1.1'],
  });
  return listenTracked(server, options, attach);
}

async function listenTracked<S extends Http2SecureServer | https.Server>(
  server: S,
  options: ListenOptions,
  attach: (server: S) => void,
): Promise<SecureHttp2Listener<S>> {
  const sessions = new Set<ServerHttp2Session>();
  const sockets = new Set<Socket>();
  const timers = new Map<NodeJS.Timeout, () => void>();

  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    // A client vanishing mid-stream is normal in tests; it must not crash the fake.
    session.on('error', () => {});
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  attach(server);

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | null = null;
  return {
    server,
    url: `https://${urlHost(host)}:${port}`,
    port,
    openSessions: () => [...sessions],
    delay: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, ms);
        timers.set(timer, resolve);
      }),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const [timer, resolveDelay] of timers) {
          clearTimeout(timer);
          resolveDelay();
        }
        timers.clear();
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/** Reads a request body, keeping at most `maxBytes` (the rest is drained and dropped) so a huge body cannot hurt. */
export async function readBody(stream: Readable, maxBytes: number): Promise<{ body: Buffer; size: number }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let size = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (kept < maxBytes) {
      const part = buffer.subarray(0, maxBytes - kept);
      chunks.push(part);
      kept += part.length;
    }
  }
  return { body: Buffer.concat(chunks), size };
}

/** A request on a fake that takes HTTP/2 and HTTP/1.1 (allowHTTP1). */
export type AnyRequest = Http2ServerRequest | IncomingMessage;

/** Numbers connections (an HTTP/2 session or an HTTP/1.1 socket) in order of first use, so records show reuse. */
export function connectionNumbering(): (request: AnyRequest) => number {
  const ids = new WeakMap<object, number>();
  let count = 0;
  return (request) => {
    const connection: object = 'stream' in request ? (request.stream.session ?? request.stream) : request.socket;
    let id = ids.get(connection);
    if (id === undefined) {
      id = ++count;
      ids.set(connection, id);
    }
    return id;
  };
}

/** The client went away before it could be answered. */
export function clientGone(request: AnyRequest): boolean {
  if ('stream' in request) return request.stream.destroyed || request.stream.closed;
  return request.socket.destroyed;
}

/** Listening on all interfaces still means clients connect over loopback, which the certificate covers. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
