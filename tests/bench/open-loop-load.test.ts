import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { openLoopLoad } from '../../bench/harness/open-loop-load.ts';

// The accept benchmarks' load generator (bench/harness/open-loop-load.ts): what it reports must be what the requests
// met. The bounds below are lower bounds set by the server's own delays, not timing thresholds: a slower machine only
// raises the figures.
let server: Server | null = null;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('openLoopLoad', () => {
  it('sends every request, reads their answers, and puts a slow 2 % at the p99', async () => {
    let served = 0;
    const bodies: string[] = [];
    const url = await listen((request, response) => {
      if (request.url === '/healthz') return response.end('ok');
      served += 1;
      setTimeout(() => response.end(`answer ${served}`), served % 50 === 0 ? 80 : 0);
    });
    const result = await openLoopLoad({
      url,
      rate: 200,
      seconds: 2,
      connections: 20,
      request: {
        method: 'POST',
        path: '/x',
        body: '{}',
        onResponse: (status, body) => void bodies.push(`${status} ${body}`),
      },
    });
    expect(result.sent).toBe(400);
    expect(result.statuses).toEqual({ '200': 400 });
    expect(bodies).toHaveLength(400);
    expect(bodies[0]).toMatch(/^200 answer \d+$/);
    expect(result.latency.answers).toBe(400);
    expect(result.latency.p99).toBeGreaterThanOrEqual(80);
  });

  it('times each request from when it was due, so a stall counts for every request due during it', async () => {
    const url = await listen((_request, response) => response.end('ok'));
    // The whole process stops for 500 ms half a second in: requests due meanwhile go out late, and count as late.
    setTimeout(() => {
      const until = Date.now() + 500;
      while (Date.now() < until);
    }, 500);
    const result = await openLoopLoad({
      url,
      rate: 200,
      seconds: 2,
      connections: 20,
      request: { method: 'GET', path: '/y' },
    });
    // 100 of the 400 requests were due during the stall: the p99 is among the first of them, ~500 ms late.
    expect(result.latency.p99).toBeGreaterThanOrEqual(400);
    expect(result.sendLagMax).toBeGreaterThanOrEqual(400);
  });

  it('counts requests that got no answer as errors, and leaves them out of the latency', async () => {
    const url = await listen((request, response) => {
      if (request.url === '/healthz') return response.end('ok');
      request.socket.destroy();
    });
    const result = await openLoopLoad({
      url,
      rate: 50,
      seconds: 0.2,
      connections: 2,
      request: { method: 'GET', path: '/z' },
    });
    expect(result.statuses).toEqual({ error: 10 });
    expect(result.latency).toEqual({ answers: 0, p50: null, p99: null, max: null });
  });
});
