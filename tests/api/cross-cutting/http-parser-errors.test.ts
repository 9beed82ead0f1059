import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorFor } from '../../../src/http/client-error.ts';
import { errorCatalog } from '../../../src/http/error-catalog.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t.close());

/** Writes raw bytes to the listening app and reads until it closes the connection: what a client on the wire sees. */
function rawHttp(request: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      const bodyText = rest.join('\r\n\r\n');
      let body: any = bodyText;
      try {
        body = JSON.parse(bodyText);
      } catch {
        // not JSON: the assertions below say so
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.end(request);
  });
}

/** The envelope of docs/design.md 2.1, with a catalog code whose status is the one on the wire. */
function expectEnvelope(response: Awaited<ReturnType<typeof rawHttp>>, code: keyof typeof errorCatalog) {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({
    status: errorCatalog[code].status,
    code,
  });
  expect(response.body).toEqual({
    success: false,
    error: { code, message: expect.any(String), requestId: expect.stringMatching(/^req_[0-9a-z]{26}$/) },
  });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['x-request-id']).toBe(response.body.error.requestId);
  expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(response.body)));
}

describe('HTTP parser errors, refused before Fastify sees a request → the error envelope', () => {
  it('answers 400 bad_request for a NUL in a header value', async () => {
    const response = await rawHttp('GET /api/v1/usage HTTP/1.1\r\nHost: localhost\r\nX-Odd: a\0b\r\n\r\n');
    expectEnvelope(response, 'bad_request');
  });

  it('answers 400 bad_request for a request line that is not HTTP', async () => {
    expectEnvelope(await rawHttp('HELLO THERE\r\n\r\n'), 'bad_request');
  });

  it('answers 431 headers_too_large for headers over the 16 KiB limit', async () => {
    const response = await rawHttp(
      `GET /api/v1/usage HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectEnvelope(response, 'headers_too_large');
  });

  it('still answers ordinary requests on the same server', async () => {
    const response = await rawHttp('GET /api/v1/usage HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('unauthorized');
  });

  it('maps the HTTP server’s timeout to 408 request_timeout (a slow client), and anything else to 400', () => {
    expect(clientErrorFor(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })).code).toBe(
      'request_timeout',
    );
    expect(clientErrorFor(Object.assign(new Error('overflow'), { code: 'HPE_HEADER_OVERFLOW' })).code).toBe(
      'headers_too_large',
    );
    expect(clientErrorFor(Object.assign(new Error('token'), { code: 'HPE_INVALID_HEADER_TOKEN' })).code).toBe(
      'bad_request',
    );
    expect(clientErrorFor({}).code).toBe('bad_request');
  });
});
