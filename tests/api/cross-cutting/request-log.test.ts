import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClarionApp } from '../../../src/http/app-types.ts';
import { buildApp } from '../../../src/http/app.ts';
import { capturingLogger } from '../../harness/captured-logs.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

// The test app logs nothing; this builds a second app on the same store with a logger that keeps its lines.
let t: TestApp;
let app: ClarionApp;
let logs: Array<Record<string, unknown>>;
beforeAll(async () => {
  t = await startTestApp();
  const captured = capturingLogger();
  logs = captured.logs;
  app = await buildApp({
    store: t.store,
    config: t.config,
    clock: t.clock,
    queue: t.queue,
    secretKey: t.secretKey,
    loggerInstance: captured.logger,
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await t.close();
});

describe('one JSON log line per request', () => {
  it('writes a single line with the request id, the request and the response summary, for answers and refusals', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const requests = [
      { method: 'GET' as const, url: '/healthz', headers: {}, status: 200 },
      {
        method: 'GET' as const,
        url: '/api/v1/usage?x=1',
        headers: { authorization: `Bearer ${account.secretKey}` },
        status: 200,
      },
      { method: 'GET' as const, url: '/api/v1/usage', headers: { authorization: 'Bearer sk_live_nope' }, status: 401 },
      {
        method: 'POST' as const,
        url: '/api/v1/notifications',
        headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
        status: 400,
      },
      { method: 'GET' as const, url: '/no/such/route', headers: {}, status: 404 },
    ];
    for (const request of requests) {
      logs.length = 0;
      const response = await app.inject({
        method: request.method,
        url: request.url,
        headers: request.headers,
        ...(request.method === 'POST' ? { payload: '{"channelCode":' } : {}),
      });
      expect(response.statusCode).toBe(request.status);
      const lines = logs.filter((line) => line.reqId !== undefined);
      expect(lines, `${request.method} ${request.url}`).toHaveLength(1);
      const line = lines[0]!;
      expect(line).toMatchObject({
        level: 30,
        msg: 'request completed',
        reqId: response.headers['x-request-id'],
        req: { method: request.method, url: request.url },
        res: { statusCode: request.status },
      });
      expect(line.responseTime).toEqual(expect.any(Number));
      // Nothing of Fastify's default pair, and no headers: the Authorization header never reaches the log.
      expect(logs.some((other) => other.msg === 'incoming request')).toBe(false);
      expect(JSON.stringify(logs)).not.toContain(account.secretKey);
    }
  });
});
