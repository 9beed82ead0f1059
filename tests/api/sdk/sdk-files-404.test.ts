import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from '../../harness/api-expect.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /sdk/* → 404', () => {
  it.each(['/sdk/unknown.js', '/sdk/', '/sdk/../package.json', '/sdk/%2e%2e/package.json'])(
    'answers not_found for %s (only the listed files are served)',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url });
      expectError({ ...response, body: response.json() }, 'not_found');
    },
  );
});
