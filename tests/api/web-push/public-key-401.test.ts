import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../../src/store/api-keys-queries.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/web-push/public-key → 401 unauthorized', () => {
  it("asks for a key of the account before it names a channel's key: channel codes are the account's own", async () => {
    await t.newAccount({ channels: ['news'] });
    const response = await get(t.app, '/api/v1/web-push/public-key?channelCode=news', null);
    expect(expectError(response, 'unauthorized').message).toMatch(/publishable key/);
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('refuses a revoked key rather than answering as if none were sent', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const revoked = await account.key({ kind: 'publishable', name: 'old page' });
    await revokeApiKey(t.store.db, revoked.id, t.clock.now());
    for (const path of ['/api/v1/web-push/public-key', '/api/v1/web-push/public-key?channelCode=news'])
      expectError(await get(t.app, path, revoked.value), 'unauthorized');
  });
});
