import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { createApiKey, rotateApiKey } from '../../src/store/api-keys-queries.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
});
afterAll(async () => t.close());

/**
 * Rotations of one key started together: on PostgreSQL each runs on its own pooled connection (poolSize 5), so they
 * really overlap; on SQLite they queue for the write lock. Either way exactly one may create a replacement.
 */
describe('rotateApiKey under concurrency', () => {
  it.each([2, 5])('lets exactly one of %i concurrent rotations win', async (count) => {
    const now = Date.now();
    const account = await createAccount(t.store.db, { name: 'Rotation race', plan: 'business', now });
    const key = await createApiKey(t.store.db, {
      accountId: account.id,
      name: 'backend',
      kind: 'secret',
      channels: null,
      now,
    });
    const results = await Promise.all(
      Array.from({ length: count }, () => rotateApiKey(t.store.db, key.row.id, { graceMs: 60_000, now })),
    );
    const winners = results.filter((result) => result !== undefined);
    expect(winners).toHaveLength(1);
    const rows = await t.store.db
      .selectFrom('api_keys')
      .select(['id', 'replaced_by'])
      .where('account_id', '=', account.id)
      .orderBy('id')
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows.find((row) => row.id === key.row.id)?.replaced_by).toBe(winners[0]!.row.id);
  });

  it('refuses to rotate a key that already has a replacement', async () => {
    const now = Date.now();
    const account = await createAccount(t.store.db, { name: 'Rotated twice', plan: 'business', now });
    const key = await createApiKey(t.store.db, {
      accountId: account.id,
      name: 'backend',
      kind: 'secret',
      channels: null,
      now,
    });
    expect(await rotateApiKey(t.store.db, key.row.id, { graceMs: 60_000, now })).toBeDefined();
    expect(await rotateApiKey(t.store.db, key.row.id, { graceMs: 60_000, now })).toBeUndefined();
  });
});
