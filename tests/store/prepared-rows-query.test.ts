import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { preparedRowsQuery } from '../../src/store/prepared-rows-query.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
});
afterAll(async () => t.close());

/** A statement over many rows built once per number of rows must run each batch with that batch's own rows. */
describe('preparedRowsQuery', () => {
  it('fills each run from its own rows, keeps constants, and builds once per number of rows', async () => {
    const now = Date.now();
    const accounts: Array<{ id: string }> = [];
    for (let n = 0; n < 5; n += 1)
      accounts.push(
        await createAccount(t.store.db, { name: `prepared-rows ${now} ${n}`, plan: n % 2 ? 'pro' : 'free', now }),
      );
    let builds = 0;
    const freeAmong = preparedRowsQuery((db, rows: ReadonlyArray<{ id: string }>) => {
      builds += 1;
      return db
        .selectFrom('accounts')
        .select('id')
        .where('plan', '=', 'free')
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .orderBy('name');
    });
    const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id);
    expect(ids(await freeAmong(t.store.db, [{ id: accounts[0]!.id }, { id: accounts[1]!.id }]))).toEqual([
      accounts[0]!.id,
    ]);
    expect(ids(await freeAmong(t.store.db, [{ id: accounts[2]!.id }, { id: accounts[4]!.id }]))).toEqual([
      accounts[2]!.id,
      accounts[4]!.id,
    ]);
    expect(ids(await freeAmong(t.store.db, [{ id: accounts[3]!.id }, { id: accounts[1]!.id }]))).toEqual([]);
    expect(builds).toBe(1);
    expect(
      ids(
        await freeAmong(
          t.store.db,
          accounts.map((account) => ({ id: account.id })),
        ),
      ),
    ).toEqual([accounts[0]!.id, accounts[2]!.id, accounts[4]!.id]);
    // Inside a transaction too (the same dialect and counts: no new build).
    await t.store.db.transaction().execute(async (trx) => {
      expect(ids(await freeAmong(trx, [{ id: accounts[4]!.id }, { id: accounts[3]!.id }]))).toEqual([accounts[4]!.id]);
    });
    expect(builds).toBe(2);
  });

  it('builds each statement anew, with its rows, on a Kysely with plugins, so the plugins see every statement', async () => {
    const account = await createAccount(t.store.db, {
      name: `prepared-rows plugin ${Date.now()}`,
      plan: 'free',
      now: Date.now(),
    });
    let seen = 0;
    const plugin: KyselyPlugin = {
      transformQuery: ({ node }) => ((seen += 1), node),
      transformResult: async ({ result }) => result,
    };
    const named = preparedRowsQuery((db, rows: ReadonlyArray<{ id: string }>) =>
      db
        .selectFrom('accounts')
        .select('name')
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        ),
    );
    expect(await named(t.store.db, [{ id: account.id }])).toEqual([{ name: account.name }]);
    expect(await named(t.store.db.withPlugin(plugin), [{ id: account.id }])).toEqual([{ name: account.name }]);
    expect(await named(t.store.db.withPlugin(plugin), [{ id: 'acc_none' }])).toEqual([]);
    expect(seen).toBe(2);
  });
});
