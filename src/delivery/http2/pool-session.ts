import http2 from 'node:http2';
import type { ClientHttp2Session, ClientHttp2Stream, OutgoingHttpHeaders } from 'node:http2';
import { isIP, type LookupFunction } from 'node:net';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import type { Clock } from '../../domain/clock.ts';
import type { DeliveryLogger } from './session-pool.ts';

/**
 * One HTTP/2 connection of the pool (session-pool.ts) and everything the pool needs to know about it: whether
 * it can take streams and how many, whether it has proven itself, and — above all — the moment it stops being usable.
 *
 * A session LEAVES the pool (`onLeave`, called exactly once) as soon as it is destroyed, reports an error, fails a
 * PING, is refused by the server (GOAWAY), or closes — whichever comes first. The pool must not wait for the 'close'
 * event: node:http2 emits it only after its last write to the socket completed, and on a black-holed connection
 * (NAT entry dropped, peer gone without a FIN) that write never completes, so a destroyed session could sit in the
 * pool forever and, with FCM's single session, no other would ever open. For the same reason the
 * TLS socket is created here (`createConnection`): node:http2 refuses `session.socket.destroy()`, and destroying the
 * socket ourselves is what releases a session stuck on such a write.
 */
export type LeaveReason = 'goaway' | 'error' | 'ping_timeout' | 'connect_timeout' | 'closed' | 'dropped';

export interface PoolSessionEvents {
  /** Connected, or the server's SETTINGS changed: the pool may dispatch more. */
  onReady(session: PoolSession): void;
  /** The session takes no new streams any more; `lastError` is the socket or TLS error, if any. */
  onLeave(session: PoolSession, reason: LeaveReason, lastError: unknown): void;
}

export interface PoolSessionOptions {
  origin: string;
  clock: Clock;
  logger: DeliveryLogger;
  name: string;
  ca?: string | Buffer | Array<string | Buffer>;
  /** Resolves the host for each new connection (the SSRF guard's, for push endpoints chosen by others). */
  lookup?: LookupFunction;
  maxStreams: number;
  connectTimeoutMs: number;
  pingTimeoutMs: number;
}

/**
 * SETTINGS must be the server's first frame (RFC 9113 §3.4, https://www.rfc-editor.org/rfc/rfc9113#section-3.4),
 * sent as soon as its side of the TLS handshake is done, so once ours is done they are a round trip away at most.
 * node:http2 can miss a reset that arrives while the handshake completes: the session then reports neither an error
 * nor a close, reads nothing and writes nothing more, and only a deadline notices it (tests/chaos/connection-faults.ts
 * met one on Node 20). Without this one the pool, which opens one connection at a time, waited out the rest of the
 * 10 s connect timeout before trying another.
 */
export const SETTINGS_AFTER_HANDSHAKE_MS = 1_000;

export class PoolSession {
  readonly session: ClientHttp2Session;
  private socket: TLSSocket | null = null;
  connected = false;
  settingsReceived = false;
  /** Completed at least one request: the server's limit reflects an authenticated connection. */
  established = false;
  /** Out of the pool (see the file comment); in-flight streams may still finish after a GOAWAY. */
  left = false;
  /** A request on it timed out and its health PING is outstanding: no new streams until it answers. */
  suspect = false;
  goawayLastStreamId: number | null = null;
  active = 0;
  lastActivity: number;
  /**
   * performance.now() when it last heard from the server (SETTINGS, an answer, a PING's): real time, not the injected
   * clock, for the pool's check of busy connections that fell silent (session-pool.ts, SILENT_AFTER_MS).
   */
  lastHeardAt = performance.now();
  private pinging = false;
  private lastError: unknown = null;
  private readonly connectTimer: NodeJS.Timeout;
  /** SETTINGS_AFTER_HANDSHAKE_MS from the handshake; whichever of the two deadlines comes first gives up. */
  private settingsTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly options: PoolSessionOptions,
    private readonly events: PoolSessionEvents,
  ) {
    this.lastActivity = options.clock.now();
    const url = new URL(options.origin);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(url.port || 443);
    this.session = http2.connect(options.origin, {
      settings: { enablePush: false },
      createConnection: () => {
        // What node:http2 does by default (ALPN h2, SNI unless an IP), keeping the socket so drop() can cut it.
        this.socket = tlsConnect({
          host,
          port,
          ALPNProtocols: ['h2'],
          ...(isIP(host) ? {} : { servername: host }),
          ...(options.ca ? { ca: options.ca } : {}),
          ...(options.lookup ? { lookup: options.lookup } : {}),
        });
        return this.socket;
      },
    });
    const session = this.session;
    this.connectTimer = setTimeout(
      () =>
        this.drop(
          'connect_timeout',
          Object.assign(new Error(`no HTTP/2 SETTINGS within ${options.connectTimeoutMs} ms of connecting`), {
            code: 'ETIMEDOUT',
          }),
        ),
      options.connectTimeoutMs,
    );
    session.on('connect', () => {
      this.connected = true;
      // The TLS handshake is done, so the server's SETTINGS is at most a round trip away (SETTINGS_AFTER_HANDSHAKE_MS).
      this.settingsTimer = setTimeout(() => this.awaitSettingsOnce(), SETTINGS_AFTER_HANDSHAKE_MS);
      options.logger.debug({ provider: options.name, origin: options.origin }, 'provider session connected');
      this.events.onReady(this);
    });
    session.on('remoteSettings', (settings) => {
      // Set up only now: a connection black-holed between the TLS handshake and the server's SETTINGS would
      // otherwise count as "connecting" forever, and the pool opens one connection at a time.
      this.clearConnectDeadlines();
      this.settingsReceived = true;
      this.lastHeardAt = performance.now();
      options.logger.debug(
        { provider: options.name, maxConcurrentStreams: settings.maxConcurrentStreams },
        'provider session settings',
      );
      this.events.onReady(this);
    });
    session.on('goaway', (errorCode: number, lastStreamId: number, data: Buffer) => {
      this.goawayLastStreamId = lastStreamId;
      options.logger.warn(
        { provider: options.name, errorCode, lastStreamId, reason: data?.toString('utf8') || undefined },
        'provider sent GOAWAY; reconnecting',
      );
      this.leave('goaway');
    });
    session.on('error', (error: unknown) => {
      this.lastError = error;
      options.logger.warn({ provider: options.name, err: error }, 'provider session error');
      this.leave('error');
    });
    session.on('close', () => {
      this.clearConnectDeadlines();
      this.leave('closed');
    });
  }

  private clearConnectDeadlines(): void {
    clearTimeout(this.connectTimer);
    if (this.settingsTimer) clearTimeout(this.settingsTimer);
  }

  /**
   * The SETTINGS deadline after the handshake has passed. A loop that was busy past it may have the SETTINGS waiting
   * in the socket, unread: setImmediate runs after the I/O the loop polls next, so they get one chance to arrive.
   */
  private awaitSettingsOnce(): void {
    setImmediate(() => {
      if (this.settingsReceived || this.left) return;
      this.drop(
        'connect_timeout',
        Object.assign(new Error(`no HTTP/2 SETTINGS within ${SETTINGS_AFTER_HANDSHAKE_MS} ms of the TLS handshake`), {
          code: 'ETIMEDOUT',
        }),
      );
    });
  }

  /** A PING is out and unanswered. */
  get pingOutstanding(): boolean {
    return this.pinging;
  }

  /** True while it may take new streams. */
  get usable(): boolean {
    return this.connected && !this.left && !this.suspect && !this.session.closed && !this.session.destroyed;
  }

  /** Streams it may carry at once now: the server's current limit, capped by ours; 0 when not usable. */
  limit(): number {
    return this.usable && this.settingsReceived
      ? Math.min(this.session.remoteSettings.maxConcurrentStreams ?? this.options.maxStreams, this.options.maxStreams)
      : 0;
  }

  /** Opens a stream; throws what session.request() throws. */
  request(headers: OutgoingHttpHeaders): ClientHttp2Stream {
    const stream = this.session.request(headers);
    this.active += 1;
    this.lastActivity = this.options.clock.now();
    return stream;
  }

  /** A stream opened by request() has closed. */
  streamClosed(answered: boolean): void {
    this.active -= 1;
    this.lastActivity = this.options.clock.now();
    if (answered) {
      this.established = true;
      this.lastHeardAt = performance.now();
    }
  }

  /**
   * PINGs it; no answer within pingTimeoutMs drops it. `health`: a request on it just timed out, so until the
   * answer it takes no new streams and does not count against maxSessions (the pool may open a replacement now).
   */
  ping(health: boolean): void {
    if (this.left || !this.connected) return;
    if (health) this.suspect = true;
    if (this.pinging) return; // the answer to the PING already out clears `suspect` too
    this.pinging = true;
    const timer = setTimeout(() => {
      this.options.logger.warn(
        { provider: this.options.name, origin: this.options.origin },
        `no PING answer within ${this.options.pingTimeoutMs} ms; dropping the session`,
      );
      this.drop('ping_timeout');
    }, this.options.pingTimeoutMs);
    timer.unref();
    const sent = this.session.ping((error) => {
      clearTimeout(timer);
      this.pinging = false;
      // Counts as activity: the next idle PING is due one interval later.
      this.lastActivity = this.options.clock.now();
      if (!error) this.lastHeardAt = performance.now();
      if (error) return this.drop('ping_timeout', error);
      if (this.suspect) {
        this.suspect = false;
        this.events.onReady(this);
      }
    });
    if (!sent) {
      clearTimeout(timer);
      this.pinging = false;
      this.suspect = false;
    }
  }

  /** Destroys it now, socket included, and takes it out of the pool at once. */
  drop(reason: LeaveReason, error?: unknown): void {
    if (error !== undefined && this.lastError === null) this.lastError = error;
    this.clearConnectDeadlines();
    this.leave(reason);
    if (!this.session.destroyed) this.session.destroy();
    this.socket?.destroy();
  }

  /** Closes it, letting in-flight streams finish for up to `graceMs`; resolves once it is gone, at most then. */
  close(graceMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.active === 0 || this.session.destroyed) {
        this.drop('closed');
        return resolve();
      }
      const timer = setTimeout(() => {
        this.drop('closed');
        resolve();
      }, graceMs);
      this.session.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.leave('closed');
      if (!this.session.closed) this.session.close();
    });
  }

  private leave(reason: LeaveReason): void {
    if (this.left) return;
    this.left = true;
    this.clearConnectDeadlines();
    this.events.onLeave(this, reason, this.lastError);
  }
}
