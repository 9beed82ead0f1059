import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ClarionApiError,
  ClarionConnectionError,
  createClarionClient,
  type ClarionClientOptions,
} from '../../packages/client/src/index.ts';

/**
 * The client's retries and Idempotency-Key against a scripted HTTP server: each test queues the answers the server
 * gives, in order, and reads back what the client sent. Waits are recorded by an injected sleep, not slept.
 */
interface Answer {
  /** 'hang': the server reads the request and never answers (for timeouts). */
  status: number | 'hang';
  headers?: Record<string, string>;
  body?: unknown;
}

const NOTIFICATION = { id: 'ntf_1', channelCode: 'news', status: 'queued', recipientCount: 1 };
const created: Answer = { status: 201, body: { success: true, data: NOTIFICATION } };
const envelope = (code: string, status: number, headers: Record<string, string> = {}): Answer => ({
  status,
  headers,
  body: { success: false, error: { code, message: `${code} message`, requestId: `req_${code}` } },
});

let server: Server;
let baseUrl: string;
let answers: Answer[] = [];
let received: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
let waits: number[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      const answer = answers.shift() ?? { status: 500, body: 'no answer queued' };
      if (answer.status === 'hang') return;
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  answers = [];
  received = [];
  waits = [];
});

const client = (retry = {}, options: Partial<ClarionClientOptions> = {}) =>
  createClarionClient({
    baseUrl: `${baseUrl}/`,
    apiKey: 'clr_sk_test',
    retry,
    sleep: async (ms) => void waits.push(ms),
    ...options,
  });

/** A loopback address where nothing listens: connecting to it is refused at once. */
async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('sends', () => {
  it('carry the key and a generated Idempotency-Key, kept across retries of 503 and 429', async () => {
    answers = [envelope('unavailable', 503), envelope('rate_limited', 429, { 'retry-after': '2' }), created];
    const notification = await client().send({ channelCode: 'news', title: 'Hi' });
    expect(notification).toEqual(NOTIFICATION);
    expect(received).toHaveLength(3);
    const keys = received.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(received.map((request) => request.body)).toEqual(
      Array(3).fill(JSON.stringify({ channelCode: 'news', title: 'Hi' })),
    );
    expect(received[0]!.headers.authorization).toBe('Bearer clr_sk_test');
    expect(received[0]!.url).toBe('/api/v1/notifications');
    expect(waits).toEqual([500, 2_000]);
  });

  it('get a new Idempotency-Key per send', async () => {
    answers = [created, created];
    await client().send({ channelCode: 'news', title: 'One' });
    await client().send({ channelCode: 'news', title: 'Two' });
    expect(received[0]!.headers['idempotency-key']).not.toBe(received[1]!.headers['idempotency-key']);
  });

  it("keep the caller's own Idempotency-Key", async () => {
    answers = [envelope('unavailable', 503), created];
    await client().send({ channelCode: 'news', title: 'Hi' }, { idempotencyKey: 'order-42-shipped' });
    expect(received.map((request) => request.headers['idempotency-key'])).toEqual([
      'order-42-shipped',
      'order-42-shipped',
    ]);
  });
});

describe('retries', () => {
  it('stop after maxRetries and throw the last answer as a typed error', async () => {
    answers = [envelope('unavailable', 503), envelope('unavailable', 503), envelope('unavailable', 503)];
    const error = await client({ maxRetries: 2 })
      .send({ channelCode: 'news', title: 'Hi' })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ClarionApiError);
    expect(error).toMatchObject({ status: 503, code: 'unavailable', requestId: 'req_unavailable' });
    expect(received).toHaveLength(3);
    expect(waits).toEqual([500, 1_000]);
  });

  it('do not wait longer than maxDelayMs: the error says how long the server asked for', async () => {
    answers = [envelope('rate_limited', 429, { 'retry-after': '120' })];
    const error = await client()
      .send({ channelCode: 'news', title: 'Hi' })
      .catch((caught) => caught);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 120 });
    expect(received).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('never repeat a 429 without Retry-After (quota_exceeded)', async () => {
    answers = [envelope('quota_exceeded', 429)];
    const error = await client()
      .send({ channelCode: 'news', title: 'Hi' })
      .catch((caught) => caught);
    expect(error).toMatchObject({ status: 429, code: 'quota_exceeded' });
    expect(received).toHaveLength(1);
  });

  it('retry GETs too, without an Idempotency-Key', async () => {
    answers = [envelope('unavailable', 503), created];
    await client().getNotification('ntf_1');
    expect(received.map((request) => [request.method, request.url, request.headers['idempotency-key']])).toEqual([
      ['GET', '/api/v1/notifications/ntf_1', undefined],
      ['GET', '/api/v1/notifications/ntf_1', undefined],
    ]);
  });
});

describe('attempts without an answer', () => {
  it('a refused connection is retried, then thrown as ClarionConnectionError with the cause', async () => {
    const error = await client({ maxRetries: 2 }, { baseUrl: await closedPortUrl() })
      .send({ channelCode: 'news', title: 'Hi' })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ClarionConnectionError);
    expect(error).toMatchObject({
      timedOut: false,
      attempts: 3,
      message: 'POST /api/v1/notifications: the connection failed (3 attempts)',
    });
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(waits).toEqual([500, 1_000]);
  });

  it('a send whose connection broke is sent again with the same Idempotency-Key', async () => {
    answers = [created];
    const keys: Array<string | null> = [];
    let failures = 1;
    const flaky = async (request: Request) => {
      keys.push(request.headers.get('idempotency-key'));
      if (failures-- > 0) throw new TypeError('fetch failed');
      return globalThis.fetch(request);
    };
    expect(await client({}, { fetch: flaky }).send({ channelCode: 'news', title: 'Hi' })).toEqual(NOTIFICATION);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(received.map((request) => request.headers['idempotency-key'])).toEqual([keys[0]]);
    expect(waits).toEqual([500]);
  });

  it('an attempt over timeoutMs is cut off and retried; the retry that answers wins', async () => {
    // No server: the first attempt hangs until the client's timeout aborts it, the second is answered at once, so
    // how loaded the machine is cannot change which attempt is cut off.
    const keys: Array<string | null> = [];
    const hangsOnce = (request: Request) => {
      keys.push(request.headers.get('idempotency-key'));
      if (keys.length === 1) {
        return new Promise<Response>((_, reject) =>
          request.signal.addEventListener('abort', () => reject(request.signal.reason)),
        );
      }
      return Promise.resolve(
        new Response(JSON.stringify(created.body), { status: 201, headers: { 'content-type': 'application/json' } }),
      );
    };
    expect(await client({}, { fetch: hangsOnce, timeoutMs: 50 }).send({ channelCode: 'news', title: 'Hi' })).toEqual(
      NOTIFICATION,
    );
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(waits).toEqual([500]);
  });

  it('the last attempt over timeoutMs throws ClarionConnectionError with timedOut', async () => {
    answers = [{ status: 'hang' }];
    const error = await client({ maxRetries: 0 }, { timeoutMs: 100 })
      .send({ channelCode: 'news', title: 'Hi' })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ClarionConnectionError);
    expect(error).toMatchObject({
      timedOut: true,
      attempts: 1,
      message: 'POST /api/v1/notifications: no answer within 100 ms (1 attempt)',
    });
  });

  it("the caller's own abort ends the call at once, without a retry", async () => {
    answers = [{ status: 'hang' }, created];
    const caller = new AbortController();
    const call = client().send({ channelCode: 'news', title: 'Hi' }, { signal: caller.signal });
    while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    caller.abort();
    const error = await call.catch((caught) => caught);
    expect(error).not.toBeInstanceOf(ClarionConnectionError);
    expect(error.name).toBe('AbortError');
    expect(received).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

describe('errors', () => {
  it('carry code, message, details and requestId from the envelope', async () => {
    answers = [
      {
        status: 400,
        body: {
          success: false,
          error: {
            code: 'validation_failed',
            message: 'bad',
            details: { fields: [{ field: 'title' }] },
            requestId: 'req_9',
          },
        },
      },
    ];
    const error = await client()
      .send({ channelCode: 'news', title: 'Hi' })
      .catch((caught) => caught);
    expect(error).toMatchObject({
      name: 'ClarionApiError',
      status: 400,
      code: 'validation_failed',
      message: 'bad',
      requestId: 'req_9',
      details: { fields: [{ field: 'title' }] },
    });
  });

  it('an answer without the envelope (a proxy page) is unexpected_response with the status', async () => {
    answers = [
      {
        status: 502,
        headers: { 'content-type': 'text/html', 'x-request-id': 'req_proxy' },
        body: '<h1>Bad gateway</h1>',
      },
    ];
    const error = await client()
      .send({ channelCode: 'news', title: 'Hi' })
      .catch((caught) => caught);
    expect(error).toMatchObject({ status: 502, code: 'unexpected_response', requestId: 'req_proxy' });
  });
});
