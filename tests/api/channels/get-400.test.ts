import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectValidation } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/channels/:code → 400 validation_failed', () => {
  it.each(['News', '-news', 'a%20b', 'x'.repeat(65), 'news.eu'])(
    'refuses the code "%s", which cannot be a channel code',
    async (code) => {
      const account = await t.newAccount({ channels: ['news'] });
      expectValidation(await get(t.app, `/api/v1/channels/${code}`, account.secretKey), ['code']);
    },
  );
});
