import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /readyz → 200', () => {
  it('answers ok without a key while storage answers', async () => {
    const response = await get(t.app, '/readyz', null);
    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers['x-request-id']).toMatch(/^req_/);
  });
});
