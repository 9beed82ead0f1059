import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.ts';
import type { ClarionApp } from '../../../src/http/app-types.ts';
import { revokeApiKey, rotateApiKey } from '../../../src/store/api-keys-queries.ts';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { progressActivity } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

// The sends admission re-checks (POST /notifications, /notify and /live-activities: src/http/admission.ts) may take the
// API key from a short in-memory cache (src/http/api-key-cache.ts).
// Two app instances on one database stand for two `clarion serve` processes: each has its own cache, so a key
// revoked through one (or by the CLI, straight in the database) must be refused by the other on its very next
// request, even though the other has the key cached from the request before.
let t: TestApp;
let other: ClarionApp;
beforeAll(async () => {
  t = await startTestApp();
  other = await buildApp({ store: t.store, config: t.config, clock: t.clock, queue: t.queue, secretKey: t.secretKey });
  await other.ready();
});
afterAll(async () => {
  await other.close();
  await t.close();
});

const send = (app: ClarionApp, key: string, body: Record<string, unknown> = { channelCode: 'news', title: 'Hi' }) =>
  post(app, '/api/v1/notifications', key, body);

describe('a cached API key on the accept path', () => {
  it('is refused on the next request once another instance revoked it, and nothing is stored or charged', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectSuccess(await send(t.app, account.secretKey), 201);
    expectSuccess(await send(other, account.secretKey), 201);
    const before = await accountState(t, account.id);

    // As `clarion keys revoke` does it from its own process: straight in the database.
    await revokeApiKey(t.store.db, account.secretKeyId, t.clock.now());
    const refused = expectError(await send(t.app, account.secretKey), 'unauthorized');
    // The same words as for a key that never existed: the cache tells a caller nothing about stored keys.
    const unknown = expectError(await send(t.app, `clr_sk_${'A'.repeat(32)}`), 'unauthorized');
    expect(refused.message).toBe(unknown.message);
    expectError(await send(other, account.secretKey), 'unauthorized');
    expectError(
      await post(t.app, '/api/v1/notify', account.secretKey, { channel: 'news', title: 'Hi' }),
      'unauthorized',
    );
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('is refused at once after a rotation without grace made in another instance', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectSuccess(await send(t.app, account.secretKey), 201);
    const rotated = await rotateApiKey(t.store.db, account.secretKeyId, { graceMs: 0, now: t.clock.now() });
    expectError(await send(t.app, account.secretKey), 'unauthorized');
    expectSuccess(await send(other, rotated!.value), 201);
  });

  it('gets 401 rather than the error its request would have had (unknown channel, scope, invalid body, too large)', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const scoped = await account.key({ channels: ['news'] });
    expectSuccess(await send(t.app, account.secretKey), 201);
    expectSuccess(await send(t.app, scoped.value), 201);
    await revokeApiKey(t.store.db, account.secretKeyId, t.clock.now());
    await revokeApiKey(t.store.db, scoped.id, t.clock.now());

    const unknown = expectError(await send(t.app, `clr_sk_${'A'.repeat(32)}`), 'unauthorized').message;
    expect(
      expectError(await send(t.app, account.secretKey, { channelCode: 'nope', title: 'Hi' }), 'unauthorized').message,
    ).toBe(unknown);
    expect(
      expectError(await send(t.app, scoped.value, { channelCode: 'sport', title: 'Hi' }), 'unauthorized').message,
    ).toBe(unknown);
    expect(expectError(await send(t.app, account.secretKey, { channelCode: 'news' }), 'unauthorized').message).toBe(
      unknown,
    );
    expect(
      expectError(
        await send(t.app, account.secretKey, { channelCode: 'news', title: 'Hi', extra: true }),
        'unauthorized',
      ).message,
    ).toBe(unknown);
    expect(
      expectError(
        await send(t.app, account.secretKey, {
          channelCode: 'news',
          title: 'Hi',
          data: { big: 'x'.repeat(1024), b2: 'x'.repeat(1024), b3: 'x'.repeat(1024), b4: 'x'.repeat(1024) },
        }),
        'unauthorized',
      ).message,
    ).toBe(unknown);
  });

  it('still gets its own errors while it is valid', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectSuccess(await send(t.app, account.secretKey), 201);
    expectError(await send(t.app, account.secretKey, { channelCode: 'nope', title: 'Hi' }), 'channel_not_found');
    expectError(await send(t.app, account.secretKey, { channelCode: 'news' }), 'validation_failed');
  });

  it('is refused with an Idempotency-Key, whose replay would otherwise answer before the handler', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectSuccess(
      await post(
        t.app,
        '/api/v1/notifications',
        account.secretKey,
        { channelCode: 'news', title: 'Hi' },
        { 'idempotency-key': 'once' },
      ),
      201,
    );
    expectSuccess(await send(t.app, account.secretKey), 201);
    await revokeApiKey(t.store.db, account.secretKeyId, t.clock.now());
    expectError(
      await post(
        t.app,
        '/api/v1/notifications',
        account.secretKey,
        { channelCode: 'news', title: 'Hi' },
        { 'idempotency-key': 'once' },
      ),
      'unauthorized',
    );
  });
});

describe('a cached API key on a Live Activity start', () => {
  const start = (app: ClarionApp, key: string, body: Record<string, unknown> = progressActivity('news')) =>
    post(app, '/api/v1/live-activities', key, body);

  it('is refused on the next start once another instance revoked it, and nothing is stored or charged', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectSuccess(await start(t.app, account.secretKey), 201);
    expectSuccess(await start(other, account.secretKey), 201);
    const before = await accountState(t, account.id);

    await revokeApiKey(t.store.db, account.secretKeyId, t.clock.now());
    const unknown = expectError(await start(t.app, `clr_sk_${'A'.repeat(32)}`), 'unauthorized').message;
    expect(expectError(await start(t.app, account.secretKey), 'unauthorized').message).toBe(unknown);
    expectError(await start(other, account.secretKey), 'unauthorized');
    // …whatever else is wrong with the start: an unknown channel, or fields its template does not take.
    expectError(await start(t.app, account.secretKey, progressActivity('nope')), 'unauthorized');
    expectError(
      await start(t.app, account.secretKey, { ...progressActivity('news'), fields: { progress: 7 } }),
      'unauthorized',
    );
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('shares the cache with the notification routes: a key a send cached is re-checked by a start', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectSuccess(await send(t.app, account.secretKey), 201);
    await revokeApiKey(t.store.db, account.secretKeyId, t.clock.now());
    expectError(await start(t.app, account.secretKey), 'unauthorized');
  });
});
