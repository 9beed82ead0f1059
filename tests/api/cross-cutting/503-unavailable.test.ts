import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.ts';
import type { ClarionApp } from '../../../src/http/app-types.ts';
import { openStore, type Store } from '../../../src/store/database.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
let down: { app: ClarionApp; store: Store };
beforeAll(async () => {
  t = await startTestApp();
  // A store whose database refuses connections (nothing listens on port 1): storage is down.
  const store = openStore({
    databaseUrl: 'postgres://clarion@127.0.0.1:1/clarion',
    dataDir: t.config.dataDir,
    poolSize: 1,
  });
  down = {
    app: await buildApp({ store, config: t.config, clock: t.clock, queue: t.queue, secretKey: t.secretKey }),
    store,
  };
});
afterAll(async () => {
  await down.app.close();
  await down.store.close();
  await t.close();
});

describe('storage down → 503 unavailable', () => {
  it('answers unavailable (not 500, not 401) to API requests, so callers retry', async () => {
    const key = `clr_sk_${'A'.repeat(32)}`;
    expectError(await get(down.app, '/api/v1/usage', key), 'unavailable');
    expectError(
      await post(down.app, '/api/v1/notifications', key, { channelCode: 'news', title: 'Hi' }),
      'unavailable',
    );
  });

  it('reports not ready on /readyz while /healthz still answers', async () => {
    expectError(await get(down.app, '/readyz', null), 'unavailable');
    expect((await get(down.app, '/healthz', null)).statusCode).toBe(200);
  });
});
