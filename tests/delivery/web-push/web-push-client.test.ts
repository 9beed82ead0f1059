import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/domain/clock.ts';
import { blankContent } from '../../../src/domain/notification-content.ts';
import type { PushContent } from '../../../src/delivery/push-content.ts';
import { generateVapidKeyPair, type VapidKeys } from '../../../src/delivery/web-push/vapid-keys.ts';
import { createWebPushClient, type WebPushClient } from '../../../src/delivery/web-push/web-push-client.ts';
import { systemResolver } from '../../../src/net/outbound-url-guard.ts';
import {
  ensureFakeTls,
  startFakeWebPush,
  type FakeSubscription,
  type FakeWebPush,
} from '../../../tools/fakes/index.ts';

/** The client against the fake push service and against endpoints that misbehave, on loopback. */
const clock = new ManualClock(Date.now());
const keys: VapidKeys = { ...generateVapidKeyPair(), subject: 'mailto:ops@example.com', source: 'config' };
const content: PushContent = {
  ...blankContent,
  notificationId: 'ntf_01test',
  title: 'Hi',
  body: 'There',
  ttlSeconds: 60,
};
let fake: FakeWebPush;
const clients: WebPushClient[] = [];
const servers: Server[] = [];
const sockets = new Set<Socket>();
const servicesToClose: FakeWebPush[] = [];

beforeAll(async () => {
  fake = await startFakeWebPush({ clock });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(servicesToClose.map((service) => service.close()));
  await fake.close();
});

function client(options: { allowPrivate?: boolean; timeoutMs?: number } = {}): WebPushClient {
  const timeouts = options.timeoutMs ? { connectTimeoutMs: options.timeoutMs, deadlineMs: options.timeoutMs } : {};
  const created = createWebPushClient({
    keys,
    clock,
    allowPrivate: options.allowPrivate ?? true,
    fallbackUrl: 'https://push.example.com',
    ...timeouts,
  });
  clients.push(created);
  return created;
}
const token = (endpoint: string, subscription = fake.subscribe()) => JSON.stringify({ ...subscription.json, endpoint });

async function listen<S extends Server>(server: S): Promise<{ server: S; port: number }> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('Web Push client: endpoint safety', () => {
  it('refuses a loopback IP endpoint and a name resolving to loopback when private addresses are not allowed, sending nothing', async () => {
    const strict = client({ allowPrivate: false });
    const subscription = fake.subscribe();
    expect(await strict.send(JSON.stringify(subscription.json), content)).toEqual({
      kind: 'rejected',
      reason: 'endpoint_refused',
    });
    const byName = subscription.endpoint.replace('127.0.0.1', 'localhost');
    expect(await strict.send(token(byName, subscription), content)).toEqual({
      kind: 'rejected',
      reason: 'endpoint_refused',
    });
    expect(fake.messages.filter((message) => message.subscriptionId === subscription.id)).toHaveLength(0);
    // The same endpoint with private addresses allowed is delivered.
    expect(await client().send(JSON.stringify(subscription.json), content)).toEqual({ kind: 'delivered' });
  });

  it('resolves the host through the guard for every connection over HTTP/2 too: the handshake and the pool', async () => {
    const named = await startFakeWebPush({ clock, host: 'localhost' });
    servicesToClose.push(named);
    const asked: string[] = [];
    const c = createWebPushClient({
      keys,
      clock,
      allowPrivate: true,
      fallbackUrl: 'https://push.example.com',
      resolve: (hostname) => {
        asked.push(hostname);
        return systemResolver(hostname);
      },
    });
    clients.push(c);
    const subscription = named.subscribe();
    expect(new URL(subscription.endpoint).hostname).toBe('localhost');
    expect(await c.send(JSON.stringify(subscription.json), content)).toEqual({ kind: 'delivered' });
    expect(named.messages.find((message) => message.subscriptionId === subscription.id)?.httpVersion).toBe('2.0');
    // One lookup for the ALPN handshake, one for the HTTP/2 connection that carried the push.
    expect(asked).toEqual(['localhost', 'localhost']);
  });

  it('calls a token that is not a usable subscription invalid (an http endpoint, foreign JSON)', async () => {
    const c = client();
    const subscription = fake.subscribe();
    expect(await c.send(token(subscription.endpoint.replace('https:', 'http:'), subscription), content)).toMatchObject({
      kind: 'token_dead',
      reason: 'token_invalid',
    });
    expect(await c.send('not json', content)).toMatchObject({ kind: 'token_dead', reason: 'token_invalid' });
  });

  it('does not follow a redirect', async () => {
    const tls = ensureFakeTls();
    const { port } = await listen(
      createTlsServer({ cert: tls.certPem, key: tls.keyPem }, (_request, response) => {
        response.writeHead(307, { location: fake.url }).end();
      }),
    );
    expect(await client().send(token(`https://127.0.0.1:${port}/push/x`), content)).toEqual({
      kind: 'rejected',
      reason: 'web-push:307',
    });
  });

  it('reads only the start of an endless answer, so it cannot hold the push', async () => {
    const tls = ensureFakeTls();
    const { port } = await listen(
      createTlsServer({ cert: tls.certPem, key: tls.keyPem }, (_request, response) => {
        response.writeHead(400, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const pump = () => {
          while (!response.destroyed && response.write(chunk));
          if (!response.destroyed) response.once('drain', pump);
        };
        pump();
      }),
    );
    expect(await client().send(token(`https://127.0.0.1:${port}/push/x`), content)).toEqual({
      kind: 'rejected',
      reason: 'web-push:400',
    });
  });

  it('an origin that never answers times out once, is paused, and does not hold pushes to other origins', async () => {
    let accepted = 0;
    const { port } = await listen(
      createTcpServer(() => {
        accepted += 1;
      }),
    );
    // It accepts the connection and never speaks: the TLS handshake itself times out.
    const c = client({ timeoutMs: 200 });
    const subscription = fake.subscribe();
    const [silent, good] = await Promise.all([
      c.send(token(`https://127.0.0.1:${port}/push/a`), content),
      c.send(JSON.stringify(subscription.json), content),
    ]);
    expect(good).toEqual({ kind: 'delivered' });
    expect(silent).toMatchObject({ kind: 'retry', reason: 'web-push:timeout' });
    // Paused now: a second push to that origin answers "retry later" without connecting.
    const acceptedBefore = accepted;
    expect(await c.send(token(`https://127.0.0.1:${port}/push/b`), content)).toMatchObject({
      kind: 'retry',
      reason: 'web-push:origin_unresponsive',
      retryAfterMs: 60_000,
    });
    expect(accepted).toBe(acceptedBefore);
  });
});

describe('Web Push client: a total deadline per push', () => {
  it('over HTTP/1.1, gives up an endpoint that answers at once and then drips its body at the deadline, keeps its status, and pauses its origin', async () => {
    // Each byte comes well inside the deadline: a timeout that restarts with every byte would wait for ever.
    const slow = await startFakeWebPush({ clock, http2: false });
    try {
      const dripping = slow.subscribe();
      slow.setSubscriptionOutcome(dripping.id, { status: 201, dripBodyMs: 100 });
      const c = client({ timeoutMs: 600 });
      const started = performance.now();
      // The push went out and was accepted: what the status says counts, whatever the body does after it.
      expect(await c.send(JSON.stringify(dripping.json), content)).toEqual({ kind: 'delivered' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(600);
      // The origin is paused: its other subscriptions answer "retry later" at once, without a connection.
      const other = slow.subscribe();
      expect(await c.send(JSON.stringify(other.json), content)).toMatchObject({
        kind: 'retry',
        reason: 'web-push:origin_unresponsive',
      });
      expect(slow.messages.filter((message) => message.subscriptionId === other.id)).toHaveLength(0);
      // Other origins are not.
      expect(await c.send(JSON.stringify(fake.subscribe().json), content)).toEqual({ kind: 'delivered' });
    } finally {
      await slow.close();
    }
  });

  it('over HTTP/2, gives up a dripping answer whole at the deadline: retried, and its origin paused', async () => {
    const slow = await startFakeWebPush({ clock });
    try {
      const dripping = slow.subscribe();
      slow.setSubscriptionOutcome(dripping.id, { status: 201, dripBodyMs: 100 });
      const c = client({ timeoutMs: 600 });
      expect(await c.send(JSON.stringify(dripping.json), content)).toMatchObject({
        kind: 'retry',
        reason: 'web-push:timeout',
      });
      expect(slow.messages.find((message) => message.subscriptionId === dripping.id)?.httpVersion).toBe('2.0');
      const other = slow.subscribe();
      expect(await c.send(JSON.stringify(other.json), content)).toMatchObject({
        kind: 'retry',
        reason: 'web-push:origin_unresponsive',
      });
      expect(slow.messages.filter((message) => message.subscriptionId === other.id)).toHaveLength(0);
    } finally {
      await slow.close();
    }
  });
});

describe('Web Push client: transport', () => {
  /** The distinct connections the fake saw for these subscriptions' pushes, and the protocols they came over. */
  const seen = (service: FakeWebPush, subscriptions: FakeSubscription[]) => {
    const ids = new Set(subscriptions.map((s) => s.id));
    const records = service.messages.filter((message) => ids.has(message.subscriptionId ?? ''));
    return {
      connections: new Set(records.map((record) => record.connectionId)).size,
      protocols: [...new Set(records.map((record) => record.httpVersion))],
    };
  };

  it('speaks HTTP/2 to a push service that offers it (ALPN h2)', async () => {
    const subscription = fake.subscribe();
    expect(await client().send(JSON.stringify(subscription.json), content)).toEqual({ kind: 'delivered' });
    expect(seen(fake, [subscription]).protocols).toEqual(['2.0']);
  });

  it('keeps connections open: ten pushes one after another share one HTTP/2 connection', async () => {
    const c = client();
    const subscriptions = Array.from({ length: 10 }, () => fake.subscribe());
    for (const subscription of subscriptions)
      expect(await c.send(JSON.stringify(subscription.json), content)).toEqual({ kind: 'delivered' });
    expect(seen(fake, subscriptions)).toEqual({ connections: 1, protocols: ['2.0'] });
  });

  it('multiplexes: 300 pushes at once to an HTTP/2 service share one or two connections', async () => {
    const c = client();
    const subscriptions = Array.from({ length: 300 }, () => fake.subscribe());
    const outcomes = await Promise.all(
      subscriptions.map((subscription) => c.send(JSON.stringify(subscription.json), content)),
    );
    expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
    const { connections, protocols } = seen(fake, subscriptions);
    expect(protocols).toEqual(['2.0']);
    expect(connections).toBeLessThanOrEqual(2);
  });

  it('keeps to the streams an HTTP/2 service allows (its SETTINGS_MAX_CONCURRENT_STREAMS)', async () => {
    const narrow = await startFakeWebPush({ clock, maxConcurrentStreams: 4 });
    try {
      let inFlight = 0;
      let most = 0;
      narrow.setLatency(() => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        return 20;
      });
      narrow.onMessage(() => (inFlight -= 1));
      const c = client();
      const subscriptions = Array.from({ length: 40 }, () => narrow.subscribe());
      const outcomes = await Promise.all(
        subscriptions.map((subscription) => c.send(JSON.stringify(subscription.json), content)),
      );
      // Every push delivered: none sent past the limit, which the service would refuse (REFUSED_STREAM).
      expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
      const { connections, protocols } = seen(narrow, subscriptions);
      expect(protocols).toEqual(['2.0']);
      expect(most).toBeLessThanOrEqual(4 * connections);
    } finally {
      await narrow.close();
    }
  });

  it('serves a push service that offers only HTTP/1.1 over a pool: 100 pushes at once use at most 32 connections', async () => {
    const http1 = await startFakeWebPush({ clock, http2: false });
    try {
      const c = client();
      const subscriptions = Array.from({ length: 100 }, () => http1.subscribe());
      const outcomes = await Promise.all(
        subscriptions.map((subscription) => c.send(JSON.stringify(subscription.json), content)),
      );
      expect(outcomes.every((outcome) => outcome.kind === 'delivered')).toBe(true);
      const { connections, protocols } = seen(http1, subscriptions);
      expect(protocols).toEqual(['1.1']);
      expect(connections).toBeGreaterThan(1);
      expect(connections).toBeLessThanOrEqual(32);
    } finally {
      await http1.close();
    }
  });

  it('signs one VAPID token per origin and reuses it', async () => {
    const c = client();
    const [a, b] = [fake.subscribe(), fake.subscribe()];
    await c.send(JSON.stringify(a.json), content);
    await c.send(JSON.stringify(b.json), content);
    const [first, second] = [a, b].map(
      (s) => fake.messages.find((message) => message.subscriptionId === s.id)!.headers.authorization,
    );
    expect(first).toBe(second);
  });
});

describe("Web Push client: the push service's own reason", () => {
  it("reads Apple's BadJwtToken for a subject Apple refuses, and keeps the subscription", async () => {
    const apple = await startFakeWebPush({ clock, service: 'apple' });
    try {
      const subscription = apple.subscribe({ applicationServerKey: keys.publicKey });
      const refusedSubject = createWebPushClient({
        keys: { ...keys, subject: 'mailto: <ops@example.com>' },
        clock,
        allowPrivate: true,
        fallbackUrl: 'https://push.example.com',
      });
      clients.push(refusedSubject);
      expect(await refusedSubject.send(JSON.stringify(subscription.json), content)).toEqual({
        kind: 'rejected',
        reason: 'web-push:403:BadJwtToken',
      });
      expect(await client().send(JSON.stringify(subscription.json), content)).toEqual({ kind: 'delivered' });
    } finally {
      await apple.close();
    }
  });
});
