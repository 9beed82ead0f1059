import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/store/accounts-store.ts';
import { preparedQuery } from '../../src/store/prepared-query.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
});
afterAll(async () => t.close());

/** A statement built once and run again with new values must answer each call with that call's values. */
describe('preparedQuery', () => {
  it('binds each call its own values, keeps constants, and builds once per shape', async () => {
    const now = Date.now();
    const names = [1, 2, 3].map((n) => `prepared-query ${now} ${n}`);
    const ids: string[] = [];
    for (const name of names) ids.push((await createAccount(t.store.db, { name, plan: n(name) === 2 ? 'pro' : 'free', now })).id);
    let builds = 0;
    const findByName = preparedQuery(
      (db, param, values: { name: string; plan?: string }) => {
        builds += 1;
        let query = db.selectFrom('accounts').select(['id', 'plan']).where('name', '=', param<string>('name')).where('created_at', '>', 0);
        if (values.plan !== undefined) query = query.where('plan', '=', param<string>('plan'));
        return query;
      },
      (values) => (values.plan === undefined ? 'any plan' : 'one plan'),
    );
    expect(await findByName(t.store.db, { name: names[0]! })).toEqual([{ id: ids[0], plan: 'free' }]);
    expect(await findByName(t.store.db, { name: names[1]! })).toEqual([{ id: ids[1], plan: 'pro' }]);
    expect(await findByName(t.store.db, { name: names[1]!, plan: 'free' })).toEqual([]);
    expect(await findByName(t.store.db, { name: names[2]!, plan: 'free' })).toEqual([{ id: ids[2], plan: 'free' }]);
    expect(builds).toBe(2);
    // Inside a transaction too (the same dialect: no new build).
    await t.store.db.transaction().execute(async (trx) => {
      expect(await findByName(trx, { name: names[2]! })).toEqual([{ id: ids[2], plan: 'free' }]);
    });
    expect(builds).toBe(2);
  });

  it('builds each statement anew, with its values, on a Kysely with plugins, so the plugins see every statement', async () => {
    const now = Date.now();
    const name = `prepared-query plugin ${now}`;
    const account = await createAccount(t.store.db, { name, plan: 'free', now });
    let seen = 0;
    const plugin: KyselyPlugin = {
      transformQuery: ({ node }) => ((seen += 1), node),
      transformResult: async ({ result }) => result,
    };
    const findByName = preparedQuery((db, param, _values: { name: string }) => db.selectFrom('accounts').select('id').where('name', '=', param<string>('name')));
    expect(await findByName(t.store.db, { name })).toEqual([{ id: account.id }]);
    expect(await findByName(t.store.db.withPlugin(plugin), { name })).toEqual([{ id: account.id }]);
    expect(await findByName(t.store.db.withPlugin(plugin), { name: 'no such account' })).toEqual([]);
    expect(seen).toBe(2);
  });
});

function n(name: string): number {
  return Number(name.split(' ').at(-1));
}
