import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /healthz → 200', () => {
  it('answers ok without a key, with a request id', async () => {
    const response = await get(t.app, '/healthz', null);
    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers['x-request-id']).toMatch(/^req_/);
  });

  it('ignores an Authorization header, even a bad one', async () => {
    expect((await get(t.app, '/healthz', 'not-a-key')).statusCode).toBe(200);
  });
});
