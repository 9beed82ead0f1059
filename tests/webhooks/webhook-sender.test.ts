import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookSender, RESPONSE_EXCERPT_BYTES } from '../../src/webhooks/webhook-sender.ts';
import type { ResolveHost } from '../../src/net/outbound-url-guard.ts';
import { startReceiver, type Answer, type Receiver } from './webhook-harness.ts';

let receiver: Receiver;
let answer: Answer = { status: 200 };
beforeAll(async () => {
  receiver = await startReceiver(() => answer);
});
afterAll(async () => receiver.close());

const body = JSON.stringify({ type: 'webhook.test', timestamp: '2026-01-01T00:00:00.000Z', data: {} });
const headers = {
  'content-type': 'application/json',
  'webhook-id': 'msg_1',
  'webhook-timestamp': '1',
  'webhook-signature': 'v1,x',
};
const open = createWebhookSender({ allowPrivate: true, timeoutMs: 500 });
const send = (url = receiver.url, sender = open, signal = new AbortController().signal) =>
  sender.send({ url, headers, body, signal });

describe('webhook sender', () => {
  it('POSTs the exact body with the signing headers and reports status, duration and the first 1 KiB', async () => {
    answer = { status: 202, body: 'é'.repeat(4000) };
    const before = receiver.requests.length;
    const result = await send();
    expect(result).toMatchObject({ statusCode: 202, error: null, retryAfter: null });
    expect(Buffer.byteLength(result.responseExcerpt!)).toBe(RESPONSE_EXCERPT_BYTES);
    expect(result.responseExcerpt).toBe('é'.repeat(512));
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const request = receiver.requests[before]!;
    expect(request).toMatchObject({ method: 'POST', body });
    expect(request.headers).toMatchObject({
      ...headers,
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': expect.stringMatching(/^Clarion-Webhooks\//),
    });
  });

  it('passes Retry-After on', async () => {
    answer = { status: 429, headers: { 'retry-after': '30' } };
    expect(await send()).toMatchObject({ statusCode: 429, retryAfter: '30', responseExcerpt: '' });
  });

  it('reports a redirect without following it', async () => {
    answer = { status: 307, headers: { location: 'http://169.254.169.254/latest/meta-data/' } };
    const before = receiver.requests.length;
    expect(await send()).toMatchObject({
      statusCode: 307,
      error:
        'redirect not followed (Location: http://169.254.169.254/latest/meta-data/): answer 2xx at the registered URL',
    });
    expect(receiver.requests.length).toBe(before + 1);
  });

  it('gives up after the timeout', async () => {
    answer = 'hang';
    const result = await send();
    expect(result).toMatchObject({
      statusCode: null,
      responseExcerpt: null,
      error: 'timeout: no answer within 500 ms',
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(450);
  });

  it('reports a refused connection', async () => {
    const closed = await startReceiver();
    await closed.close();
    expect(await send(closed.url)).toMatchObject({ statusCode: null, error: 'connection refused (ECONNREFUSED)' });
  });

  it('stops when the worker shuts down', async () => {
    answer = 'hang';
    const controller = new AbortController();
    const pending = send(receiver.url, open, controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect(await pending).toMatchObject({ statusCode: null, error: 'aborted: the worker is shutting down' });
  });
});

describe('webhook sender: the SSRF guard at send time', () => {
  it.each([
    [
      'an IP-literal loopback URL',
      (port: number) => `http://127.0.0.1:${port}/x`,
      /^refused: 127\.0\.0\.1 is a loopback address/,
    ],
    ['an IPv6 loopback URL', (port: number) => `http://[::1]:${port}/x`, /^refused: ::1 is a loopback address/],
    [
      'an IPv4-mapped loopback URL',
      (port: number) => `http://[::ffff:127.0.0.1]:${port}/x`,
      /^refused: ::ffff:7f00:1 is a loopback address/,
    ],
    [
      'localhost',
      (port: number) => `http://localhost:${port}/x`,
      /^refused: localhost resolves to (127\.0\.0\.1|::1) is a loopback address/,
    ],
  ])('refuses %s before connecting', async (_name, url, message) => {
    const strict = createWebhookSender({ allowPrivate: false, timeoutMs: 500 });
    answer = { status: 200 };
    const before = receiver.requests.length;
    const result = await send(url(receiver.port), strict);
    expect(result).toMatchObject({ statusCode: null, responseExcerpt: null, error: expect.stringMatching(message) });
    expect(receiver.requests.length).toBe(before);
  });

  it('refuses a name that now resolves to a private address (DNS rebinding), without connecting anywhere', async () => {
    const resolved: string[] = [];
    const rebinding: ResolveHost = async (hostname) => {
      resolved.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const strict = createWebhookSender({ allowPrivate: false, timeoutMs: 500, resolve: rebinding });
    const before = receiver.requests.length;
    const result = await send(`http://rebind.example.com:${receiver.port}/x`, strict);
    expect(result.error).toMatch(/^refused: rebind\.example\.com resolves to 127\.0\.0\.1 is a loopback address/);
    expect(resolved).toEqual(['rebind.example.com']);
    expect(receiver.requests.length).toBe(before);
  });

  it('connects to the address it checked: a name resolved by the guard reaches the receiver when allowed', async () => {
    const toLoopback: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }];
    const allowed = createWebhookSender({ allowPrivate: true, timeoutMs: 500, resolve: toLoopback });
    answer = { status: 204 };
    const before = receiver.requests.length;
    expect(await send(`http://receiver.test:${receiver.port}/x`, allowed)).toMatchObject({ statusCode: 204 });
    expect(receiver.requests[before]!.headers.host).toBe(`receiver.test:${receiver.port}`);
  });
});
