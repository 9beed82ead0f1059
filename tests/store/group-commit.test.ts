import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
});
afterAll(async () => t.close());

/**
 * Store.runShortTransaction: units submitted together share a commit on SQLite (one transaction, a savepoint each,
 * src/store/sqlite/group-commit.ts), each its own on PostgreSQL; either way each keeps its own outcome.
 */
describe('short transactions (group commit on SQLite)', () => {
  it('commits the units that succeed and rolls back only the writes of the one that throws', async () => {
    const now = Date.now();
    const group = { run: t.store.runShortTransaction.bind(t.store) };
    const names = ['first', 'failing', 'third'].map((name) => `group-commit ${name} ${now}`);
    const results = await Promise.allSettled(
      names.map((name) =>
        group.run(async (trx) => {
          const account = await createAccount(trx, { name, plan: 'free', now });
          if (name.includes('failing')) throw new Error('refused after writing');
          return account.id;
        }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('refused after writing'));
    const stored = await t.store.db
      .selectFrom('accounts')
      .select('name')
      .where('name', 'in', names)
      .orderBy('name')
      .execute();
    expect(stored.map((row) => row.name)).toEqual([names[0], names[2]]);
  });

  it('answers each unit with its own value, also past the size of one group', async () => {
    const group = { run: t.store.runShortTransaction.bind(t.store) };
    const values = await Promise.all(
      Array.from({ length: 150 }, (_, n) =>
        group.run(async (trx) => (await trx.selectNoFrom((eb) => eb.val(n).as('n')).executeTakeFirstOrThrow()).n),
      ),
    );
    expect(values.map(Number)).toEqual(Array.from({ length: 150 }, (_, n) => n));
  });
});
