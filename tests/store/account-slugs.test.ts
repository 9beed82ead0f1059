import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, findAccountBySlug } from '../../src/store/accounts-queries.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

let testStore: TestStore;
beforeAll(async () => {
  testStore = await openTestStore();
});
afterAll(async () => testStore.close());

describe('account slugs in the store', () => {
  it('gives a new account its name as slug, and a later one of the same name a suffixed one', async () => {
    const db = testStore.store.db;
    const name = `Slug test ${Date.now()} ${Math.random().toString(36).slice(2, 8)}`;
    const first = await createAccount(db, { name, plan: 'free', now: Date.now() });
    const second = await createAccount(db, { name, plan: 'free', now: Date.now() });
    expect(second.slug).toMatch(new RegExp(`^${first.slug}-[a-z2-9]{6}$`));
    expect((await findAccountBySlug(db, first.slug))?.id).toBe(first.id);
    expect((await findAccountBySlug(db, second.slug))?.id).toBe(second.id);
  });

  it('inside a transaction on either dialect: a taken slug does not abort it', async () => {
    const db = testStore.store.db;
    const name = `Slug tx ${Date.now()} ${Math.random().toString(36).slice(2, 8)}`;
    await createAccount(db, { name, plan: 'free', now: Date.now() });
    const ids = await db.transaction().execute(async (trx) => {
      const again = await createAccount(trx, { name, plan: 'free', now: Date.now() });
      const after = await trx.selectFrom('accounts').select('id').where('id', '=', again.id).executeTakeFirst();
      return [again.id, after?.id];
    });
    expect(ids[1]).toBe(ids[0]);
  });

  it('finds nothing for a string that is not a slug, without asking the database', async () => {
    expect(await findAccountBySlug(testStore.store.db, 'Not a slug\0')).toBeUndefined();
  });
});
