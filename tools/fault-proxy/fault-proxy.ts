import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { FaultLane } from './fault-lane.ts';

/**
 * A TCP proxy on loopback that breaks connections on command, for testing what Clarion does when the network
 * between it and APNs/FCM fails (tests/chaos/, tests/delivery/http2/). It forwards bytes and understands nothing
 * above TCP, so TLS and HTTP/2 pass through untouched: point a client at `https://127.0.0.1:<port>` (the fakes'
 * certificate covers 127.0.0.1 and localhost, tools/fakes/fake-tls.ts) and it reaches the upstream server.
 *
 * - reset(): every open connection is cut with a TCP RST, both towards the client and towards the upstream;
 *   reset('upstream') cuts only the upstream leg and leaves the client's open and silent (a middlebox that lost the
 *   connection's state without telling the client: it reads nothing more and answers nothing); reset('client') cuts
 *   only the client's leg (the upstream leg is closed with a FIN, as a proxy that lost its client does);
 * - refuse(count): the next `count` new connections (all, by default, until refuse(0)) are cut with an RST as soon
 *   as they are accepted, before a byte of TLS: a reconnect that is refused;
 * - swallow(count): the next `count` new connections are accepted and then never forwarded, either way, until the
 *   proxy closes: a TLS handshake that never completes;
 * - stall() / resume(): a black hole. Nothing is forwarded either way, on open connections and on new ones (which
 *   are accepted but never reach the upstream until resume()), so the client sees no error, only silence.
 *   stall({ newConnections: false }) black-holes only the open ones: a NAT entry that expired, or a peer gone
 *   without a FIN, while a new connection would work;
 * - slow(ms): every chunk is delayed by `ms` in each direction, order kept; slow(0) turns it off;
 * - drip(ms): towards the client, on open and new connections, the next chunk goes out at once and every later byte
 *   one at a time, `ms` apart: a peer that answers at once and then trickles, so the connection is never idle and
 *   never done; drip(0) turns it off.
 */
export interface FaultProxyOptions {
  /** Where to forward, e.g. the fake APNs's https://127.0.0.1:41234 (only host and port are used). */
  target: string | { host: string; port: number };
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
}

export interface FaultProxy {
  readonly port: number;
  /** `https://127.0.0.1:<port>`: the URL to give a client in place of the upstream's. */
  readonly url: string;
  /** Connections open now. */
  readonly openConnections: number;
  /** Connections accepted since start. */
  readonly acceptedConnections: number;
  /**
   * Resets every open connection (TCP RST) on `side` ('both' by default; 'upstream' leaves the client's leg open and
   * silent, 'client' closes the upstream leg with a FIN); returns how many. New connections are forwarded as usual.
   */
  reset(side?: ResetSide): number;
  /** Cuts the next `count` new connections with an RST as soon as they are accepted; 0 stops refusing. */
  refuse(count?: number): void;
  /** Accepts the next `count` new connections and forwards nothing on them, ever; 0 stops swallowing. */
  swallow(count?: number): void;
  /** Black-holes every open connection, and every new one unless `newConnections` is false, until resume(). */
  stall(options?: { newConnections?: boolean }): void;
  resume(): void;
  /** Delays every chunk by `ms` in both directions; 0 turns it off. */
  slow(ms: number): void;
  /** Towards the client: the next chunk at once, then one byte every `ms`, on open and new connections; 0 turns it off. */
  drip(ms: number): void;
  /** Calls `listener` with the running count each time a connection is accepted; returns the unsubscribe function. */
  onConnection(listener: (accepted: number) => void): () => void;
  close(): Promise<void>;
}

export type ResetSide = 'both' | 'upstream' | 'client';

interface Link {
  client: Socket;
  upstream: Socket | null;
  lanes: FaultLane[];
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = typeof options.target === 'string' ? hostAndPort(options.target) : options.target;
  const links = new Set<Link>();
  /** Client legs left open and silent (reset('upstream'), swallow()), until the client closes them or the proxy closes. */
  const silent = new Set<Socket>();
  const listeners = new Set<(accepted: number) => void>();
  let stalled = false;
  let delayMs = 0;
  let dripMs = 0;
  let refusing = 0;
  let swallowing = 0;
  let accepted = 0;

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    accepted += 1;
    if (refusing > 0) {
      refusing -= 1;
      client.on('error', () => {});
      client.resetAndDestroy();
      for (const listener of listeners) listener(accepted);
      return;
    }
    if (swallowing > 0) {
      swallowing -= 1;
      keepSilent(client);
      for (const listener of listeners) listener(accepted);
      return;
    }
    const link: Link = { client, upstream: null, lanes: [] };
    links.add(link);
    client.on('error', () => teardown(link));
    client.on('close', () => teardown(link));
    for (const listener of listeners) listener(accepted);
    // A black-holed connection reaches nothing until resume(): the client's handshake just waits.
    if (!stalled) wire(link);
  });

  function wire(link: Link): void {
    if (link.upstream || link.client.destroyed) return;
    const upstream = connect(target.port, target.host);
    link.upstream = upstream;
    upstream.on('error', () => teardown(link));
    upstream.on('close', () => teardown(link));
    link.lanes = [new FaultLane(link.client, upstream), new FaultLane(upstream, link.client)];
    for (const lane of link.lanes) lane.slow(delayMs);
    link.lanes[1]!.drip(dripMs);
    link.client.resume();
  }

  /** Leaves `client` open with nothing read from it or written to it: its writes back up unanswered. */
  function keepSilent(client: Socket): void {
    client.pause();
    client.on('error', () => {});
    silent.add(client);
    client.once('close', () => silent.delete(client));
  }

  /** One side gone: the other goes too, abruptly (a proxy that lost one leg has nothing to forward). */
  function teardown(link: Link): void {
    if (!links.delete(link)) return;
    for (const lane of link.lanes) lane.dispose();
    link.client.destroy();
    link.upstream?.destroy();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';

  return {
    port,
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get openConnections() {
      return links.size;
    },
    get acceptedConnections() {
      return accepted;
    },
    reset(side = 'both') {
      const count = links.size;
      for (const link of [...links]) {
        // Out of `links` first: the legs' close handlers then leave the other leg alone (teardown()).
        links.delete(link);
        for (const lane of link.lanes) lane.dispose();
        if (side === 'upstream') keepSilent(link.client);
        else link.client.resetAndDestroy();
        if (link.upstream && !link.upstream.destroyed) {
          // An upstream still connecting cannot be reset; destroying it is the same to the server.
          if (side === 'client' || link.upstream.connecting) link.upstream.destroy();
          else link.upstream.resetAndDestroy();
        }
      }
      return count;
    },
    refuse(count = Number.POSITIVE_INFINITY) {
      refusing = Math.max(0, count);
    },
    swallow(count = Number.POSITIVE_INFINITY) {
      swallowing = Math.max(0, count);
    },
    stall({ newConnections = true } = {}) {
      stalled = newConnections;
      for (const link of links) for (const lane of link.lanes) lane.stall();
    },
    resume() {
      stalled = false;
      for (const link of [...links]) {
        if (link.upstream) for (const lane of link.lanes) lane.resume();
        else wire(link);
      }
    },
    slow(ms) {
      delayMs = ms;
      for (const link of links) for (const lane of link.lanes) lane.slow(ms);
    },
    drip(ms) {
      dripMs = ms;
      for (const link of links) link.lanes[1]?.drip(ms);
    },
    onConnection(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const link of [...links]) teardown(link);
        for (const client of [...silent]) client.destroy();
      }),
  };
}

function hostAndPort(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}
