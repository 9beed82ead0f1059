import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../../tools/fault-proxy/fault-proxy.ts';
import { waitFor } from '../harness/wait-for.ts';

/** The fault proxy (tools/fault-proxy/) in front of a TCP echo server that records what reached it. */
interface Echo {
  server: Server;
  port: number;
  sockets: Set<Socket>;
  received: string[];
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function echoServer(): Promise<Echo> {
  const echo: Echo = { server: createServer(), port: 0, sockets: new Set(), received: [] };
  echo.server.on('connection', (socket) => {
    echo.sockets.add(socket);
    socket.on('close', () => echo.sockets.delete(socket));
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      echo.received.push(chunk.toString());
      socket.write(chunk);
    });
  });
  await new Promise<void>((resolve) => echo.server.listen(0, '127.0.0.1', resolve));
  echo.port = (echo.server.address() as AddressInfo).port;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        echo.server.close(() => resolve());
        for (const socket of echo.sockets) socket.destroy();
      }),
  );
  return echo;
}

async function proxyTo(echo: Echo): Promise<FaultProxy> {
  const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: echo.port } });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** A client connection whose received text and close/error are recorded. */
async function client(
  port: number,
): Promise<{ socket: Socket; text: () => string; error: () => NodeJS.ErrnoException | null; closed: () => boolean }> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let error: NodeJS.ErrnoException | null = null;
  let closed = false;
  socket.on('data', (chunk) => (text += chunk.toString()));
  socket.on('error', (caught) => (error = caught));
  socket.on('close', () => (closed = true));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  cleanups.push(async () => void socket.destroy());
  return { socket, text: () => text, error: () => error, closed: () => closed };
}

describe('fault proxy', () => {
  it('forwards bytes both ways', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo);
    const c = await client(proxy.port);
    c.socket.write('hello');
    await waitFor(() => c.text() === 'hello', 5_000, 'the echo');
    expect(proxy.openConnections).toBe(1);
    expect(proxy.url).toBe(`https://127.0.0.1:${proxy.port}`);
  });

  it('reset() cuts every open connection with an RST on both sides; new connections work', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo);
    const a = await client(proxy.port);
    const b = await client(proxy.port);
    a.socket.write('a');
    b.socket.write('b');
    await waitFor(
      () => a.text() === 'a' && b.text() === 'b' && echo.sockets.size === 2,
      5_000,
      'both connections to be up',
    );
    expect(proxy.reset()).toBe(2);
    await waitFor(() => a.closed() && b.closed(), 5_000, 'both clients to see the reset');
    expect(a.error()?.code).toBe('ECONNRESET');
    expect(b.error()?.code).toBe('ECONNRESET');
    await waitFor(() => echo.sockets.size === 0, 5_000, 'the upstream legs to close');
    expect(proxy.openConnections).toBe(0);
    const c = await client(proxy.port);
    c.socket.write('again');
    await waitFor(() => c.text() === 'again', 5_000, 'an echo on a new connection');
  });

  it("reset('upstream') cuts only the upstream leg: the client's connection stays open and hears nothing", async () => {
    const echo = await echoServer();
    const upstreamErrors: string[] = [];
    echo.server.on('connection', (socket) =>
      socket.on('error', (error: NodeJS.ErrnoException) => upstreamErrors.push(error.code ?? '')),
    );
    const proxy = await proxyTo(echo);
    const c = await client(proxy.port);
    c.socket.write('a');
    await waitFor(() => c.text() === 'a', 5_000, 'the first echo');
    expect(proxy.reset('upstream')).toBe(1);
    await waitFor(() => echo.sockets.size === 0, 5_000, 'the upstream leg to be reset');
    expect(upstreamErrors).toEqual(['ECONNRESET']);
    await new Promise<void>((resolve) => c.socket.write('unheard', () => resolve()));
    // A barrier: a round trip straight to the echo server completes while the client's leg stays silent.
    const direct = await client(echo.port);
    direct.socket.write('direct');
    await waitFor(() => direct.text() === 'direct', 5_000, 'the direct echo');
    expect(c.text()).toBe('a');
    expect(c.closed()).toBe(false);
    expect(echo.received).not.toContain('unheard');
    // close() ends the silent leg too.
    await proxy.close();
    await waitFor(() => c.closed(), 5_000, 'the silent client leg to close with the proxy');
  });

  it("reset('client') cuts only the client's leg with an RST; the upstream leg is closed", async () => {
    const echo = await echoServer();
    const upstreamErrors: string[] = [];
    echo.server.on('connection', (socket) =>
      socket.on('error', (error: NodeJS.ErrnoException) => upstreamErrors.push(error.code ?? '')),
    );
    const proxy = await proxyTo(echo);
    const c = await client(proxy.port);
    c.socket.write('a');
    await waitFor(() => c.text() === 'a' && echo.sockets.size === 1, 5_000, 'the first echo');
    expect(proxy.reset('client')).toBe(1);
    await waitFor(() => c.closed() && echo.sockets.size === 0, 5_000, 'both legs to close');
    expect(c.error()?.code).toBe('ECONNRESET');
    expect(upstreamErrors).toEqual([]);
  });

  it('refuse(n) cuts the next n new connections with an RST; later ones are forwarded', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo);
    proxy.refuse(1);
    // Cut before the client may even see its connect: only the error is awaited.
    const refused = connect(proxy.port, '127.0.0.1');
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => refused.once('error', resolve));
    expect(error.code).toBe('ECONNRESET');
    const next = await client(proxy.port);
    next.socket.write('b');
    await waitFor(() => next.text() === 'b', 5_000, 'an echo on the next connection');
    expect(proxy.acceptedConnections).toBe(2);
  });

  it('swallow(n) holds the next n new connections silent for good; later ones are forwarded', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo);
    proxy.swallow(1);
    const swallowed = await client(proxy.port);
    await new Promise<void>((resolve) => swallowed.socket.write('lost', () => resolve()));
    const next = await client(proxy.port);
    next.socket.write('b');
    await waitFor(() => next.text() === 'b', 5_000, 'an echo on the next connection');
    expect(echo.received).toEqual(['b']);
    expect(swallowed.text()).toBe('');
    expect(swallowed.closed()).toBe(false);
    await proxy.close();
    await waitFor(() => swallowed.closed(), 5_000, 'the swallowed connection to close with the proxy');
  });

  it('drip(ms) sends the next chunk towards the client at once, then one byte every ms', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo);
    const c = await client(proxy.port);
    proxy.drip(100);
    c.socket.write('head');
    await waitFor(() => c.text() === 'head', 5_000, 'the first chunk, whole');
    const started = Date.now();
    const seen: string[] = [];
    c.socket.on('data', (chunk) => seen.push(chunk.toString()));
    c.socket.write('abc');
    await waitFor(() => c.text() === 'headabc', 5_000, 'the dripped bytes');
    expect(seen).toEqual(['a', 'b', 'c']);
    // An injected delay is a lower bound: three bytes, each at least 100 ms after the one before.
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    // The other direction is not slowed.
    expect(echo.received.join('')).toBe('headabc');
    proxy.drip(0);
    c.socket.write('fast');
    await waitFor(() => c.text() === 'headabcfast', 5_000, 'the echo once dripping is off');
  });

  it('stall() black-holes open and new connections until resume()', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo);
    const open = await client(proxy.port);
    open.socket.write('before');
    await waitFor(() => open.text() === 'before', 5_000, 'the first echo');

    proxy.stall();
    let resumed = false;
    const arrivals: Array<{ text: string; resumed: boolean }> = [];
    echo.server.on('connection', (socket) =>
      socket.on('data', (chunk) => arrivals.push({ text: chunk.toString(), resumed })),
    );
    for (const socket of echo.sockets) socket.on('data', (chunk) => arrivals.push({ text: chunk.toString(), resumed }));
    await new Promise<void>((resolve) => open.socket.write('held', () => resolve()));
    const fresh = await client(proxy.port);
    await new Promise<void>((resolve) => fresh.socket.write('new', () => resolve()));
    // A barrier: a round trip straight to the echo server completes while the proxied bytes stay held.
    const direct = await client(echo.port);
    direct.socket.write('direct');
    await waitFor(() => direct.text() === 'direct', 5_000, 'the direct echo');
    expect(echo.sockets.size).toBe(2); // the first leg and the direct one: the new connection reached nothing

    resumed = true;
    proxy.resume();
    await waitFor(
      () => open.text() === 'beforeheld' && fresh.text() === 'new',
      5_000,
      'the held bytes to flow after resume()',
    );
    expect(arrivals.filter((arrival) => arrival.text !== 'direct')).toEqual([
      { text: 'held', resumed: true },
      { text: 'new', resumed: true },
    ]);
  });

  it('stall({ newConnections: false }) black-holes only the open connections', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo);
    const old = await client(proxy.port);
    old.socket.write('a');
    await waitFor(() => old.text() === 'a', 5_000, 'the first echo');
    proxy.stall({ newConnections: false });
    old.socket.write('held');
    const fresh = await client(proxy.port);
    fresh.socket.write('fresh');
    await waitFor(() => fresh.text() === 'fresh', 5_000, 'the new connection to work');
    expect(echo.received).not.toContain('held');
    proxy.resume();
    await waitFor(() => old.text() === 'aheld', 5_000, 'the held bytes after resume()');
  });

  it('slow(ms) delays every chunk in each direction and keeps their order', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo);
    proxy.slow(50);
    const c = await client(proxy.port);
    const started = Date.now();
    for (const part of ['1', '2', '3', '4', '5']) c.socket.write(part);
    await waitFor(() => c.text().length === 5, 5_000, 'five echoed chunks');
    expect(c.text()).toBe('12345');
    // An injected delay is a lower bound, never flaky: 50 ms on the way in, 50 ms on the way back.
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    proxy.slow(0);
  });

  it('close() ends every connection and stops listening', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo);
    const c = await client(proxy.port);
    proxy.stall();
    await proxy.close();
    await waitFor(() => c.closed(), 5_000, 'the client to be disconnected');
    const refused = connect(proxy.port, '127.0.0.1');
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => refused.once('error', resolve));
    expect(error.code).toBe('ECONNREFUSED');
  });
});
