import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { del, get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { MAX_RELAYS_PER_ACCOUNT } from '../../../src/store/relays-queries.ts';

/** POST, GET /api/v1/relays and DELETE /api/v1/relays/{id} (docs/live-activities.md, "Relays"): every status. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const create = { sender: 'github-actions', channelCode: 'builds', name: 'shop CI' };

describe('POST /api/v1/relays', () => {
  it('→ 201 with the payload url and the secret, shown once and sealed at rest', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    const response = await post(t.app, '/api/v1/relays', account.secretKey, create);
    const relay = expectSuccess(response, 201);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(relay).toMatchObject({ sender: 'github-actions', channelCode: 'builds', name: 'shop CI', lastUsedAt: null });
    expect(relay.id).toMatch(/^rly_/);
    expect(relay.secret).toMatch(/^clr_rs_[A-Za-z0-9_-]{32}$/);
    expect(relay.url).toBe(`${t.config.baseUrl}/api/v1/relays/github-actions?relay=${relay.id}`);
    const stored = await t.store.db
      .selectFrom('relays')
      .selectAll()
      .where('id', '=', relay.id)
      .executeTakeFirstOrThrow();
    expect(stored.secret).not.toContain(relay.secret.slice(7));
    const listed = expectSuccess(await get(t.app, '/api/v1/relays', account.secretKey), 200);
    const { secret: _secret, ...withoutSecret } = relay;
    expect(listed).toEqual([withoutSecret]);
  });

  it('→ 400 for an unknown sender or a missing channel', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    expectError(
      await post(t.app, '/api/v1/relays', account.secretKey, { ...create, sender: 'gitlab' }),
      'validation_failed',
    );
    expectError(
      await post(t.app, '/api/v1/relays', account.secretKey, { sender: 'github-actions' }),
      'validation_failed',
    );
  });

  it('→ 401 without a key, 403 for a publishable or channel-scoped key, 404 for an unknown channel', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    expectError(await post(t.app, '/api/v1/relays', null, create), 'unauthorized');
    expectError(await post(t.app, '/api/v1/relays', account.publishableKey, create), 'forbidden');
    const scoped = (await account.key({ channels: ['builds'] })).value;
    expectError(await post(t.app, '/api/v1/relays', scoped, create), 'forbidden');
    expectError(
      await post(t.app, '/api/v1/relays', account.secretKey, { ...create, channelCode: 'nope' }),
      'channel_not_found',
    );
    expect(await t.store.db.selectFrom('relays').selectAll().where('account_id', '=', account.id).execute()).toEqual(
      [],
    );
  });

  it(`→ 409 past ${MAX_RELAYS_PER_ACCOUNT} relays`, async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    for (let n = 0; n < MAX_RELAYS_PER_ACCOUNT; n += 1)
      expectSuccess(await post(t.app, '/api/v1/relays', account.secretKey, create), 201);
    expectError(await post(t.app, '/api/v1/relays', account.secretKey, create), 'conflict');
  });
});

describe('DELETE /api/v1/relays/{id}', () => {
  it('→ 200, then 404; another account’s relay and a malformed id are 404', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    const other = await t.newAccount({ channels: ['builds'] });
    const relay = expectSuccess(await post(t.app, '/api/v1/relays', account.secretKey, create), 201);
    expectError(await del(t.app, `/api/v1/relays/${relay.id}`, other.secretKey), 'not_found');
    expectError(await del(t.app, '/api/v1/relays/rly_%00', account.secretKey), 'not_found');
    expect(expectSuccess(await del(t.app, `/api/v1/relays/${relay.id}`, account.secretKey), 200)).toEqual({
      id: relay.id,
      deleted: true,
    });
    expectError(await del(t.app, `/api/v1/relays/${relay.id}`, account.secretKey), 'not_found');
    expect(expectSuccess(await get(t.app, '/api/v1/relays', account.secretKey), 200)).toEqual([]);
  });

  it('→ 401 without a key, 403 for a channel-scoped key', async () => {
    const account = await t.newAccount({ channels: ['builds'] });
    const relay = expectSuccess(await post(t.app, '/api/v1/relays', account.secretKey, create), 201);
    expectError(await del(t.app, `/api/v1/relays/${relay.id}`, null), 'unauthorized');
    expectError(
      await del(t.app, `/api/v1/relays/${relay.id}`, (await account.key({ channels: ['builds'] })).value),
      'forbidden',
    );
    expectError(await get(t.app, '/api/v1/relays', (await account.key({ channels: ['builds'] })).value), 'forbidden');
  });
});
