import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey, rotateApiKey } from '../../../src/store/api-keys-queries.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const usage = (key: string) => get(t.app, '/api/v1/usage', key);
const HOUR = 3_600_000;

describe('revoked keys', () => {
  it('fail with 401 from the very next request', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectSuccess(await usage(account.secretKey), 200);
    await revokeApiKey(t.store.db, account.secretKeyId, t.clock.now());
    expectError(await usage(account.secretKey), 'unauthorized');
    expectError(
      await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hi' }),
      'unauthorized',
    );
  });

  it('leave the other keys of the account working', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const other = await account.key({ name: 'other' });
    await revokeApiKey(t.store.db, account.secretKeyId, t.clock.now());
    expectSuccess(await usage(other.value), 200);
  });

  it('include publishable keys', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const key = await account.key({ kind: 'publishable', name: 'app' });
    await revokeApiKey(t.store.db, key.id, t.clock.now());
    expectError(
      await post(t.app, '/api/v1/subscribers', key.value, { channelCode: 'news', platform: 'android', token: 'fcm-x' }),
      'unauthorized',
    );
  });
});

describe('expired keys', () => {
  it('work until their expiry and fail with 401 from then on', async () => {
    const account = await t.newAccount();
    const now = t.clock.now();
    const key = await createApiKey(t.store.db, {
      accountId: account.id,
      name: 'short-lived',
      kind: 'secret',
      channels: null,
      now,
      expiresAt: now + HOUR,
    });
    expectSuccess(await usage(key.value), 200);
    t.clock.advance(HOUR - 1);
    expectSuccess(await usage(key.value), 200);
    t.clock.advance(1);
    expectError(await usage(key.value), 'unauthorized');
  });
});

describe('rotated keys', () => {
  it('without grace: the new key works and the old one fails at once', async () => {
    const account = await t.newAccount();
    const rotated = await rotateApiKey(t.store.db, account.secretKeyId, { graceMs: 0, now: t.clock.now() });
    expectSuccess(await usage(rotated!.value), 200);
    expectError(await usage(account.secretKey), 'unauthorized');
  });

  it('with a grace period: both work until the clock passes it, then the old one fails', async () => {
    const account = await t.newAccount();
    const rotated = await rotateApiKey(t.store.db, account.secretKeyId, { graceMs: 24 * HOUR, now: t.clock.now() });
    expectSuccess(await usage(account.secretKey), 200);
    expectSuccess(await usage(rotated!.value), 200);
    t.clock.advance(24 * HOUR - 1);
    expectSuccess(await usage(account.secretKey), 200);
    t.clock.advance(1);
    expectError(await usage(account.secretKey), 'unauthorized');
    expectSuccess(await usage(rotated!.value), 200);
  });

  it('keep the kind and the channel scope of the old key', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const scoped = await account.key({ channels: ['news'] });
    const rotated = (await rotateApiKey(t.store.db, scoped.id, { graceMs: 0, now: t.clock.now() }))!;
    expect(rotated.value).toMatch(/^clr_sk_/);
    expectError(
      await post(t.app, '/api/v1/notifications', rotated.value, { channelCode: 'sport', title: 'Hi' }),
      'channel_not_allowed',
    );
    expectSuccess(await post(t.app, '/api/v1/notifications', rotated.value, { channelCode: 'news', title: 'Hi' }), 201);

    const publishable = await account.key({ kind: 'publishable', name: 'app' });
    const newPublishable = (await rotateApiKey(t.store.db, publishable.id, { graceMs: 0, now: t.clock.now() }))!;
    expect(newPublishable.value).toMatch(/^clr_pk_/);
    expectError(await usage(newPublishable.value), 'forbidden');
  });

  it('cannot bring a revoked key back', async () => {
    const account = await t.newAccount();
    await revokeApiKey(t.store.db, account.secretKeyId, t.clock.now());
    expect(await rotateApiKey(t.store.db, account.secretKeyId, { graceMs: HOUR, now: t.clock.now() })).toBeUndefined();
    expectError(await usage(account.secretKey), 'unauthorized');
  });
});
