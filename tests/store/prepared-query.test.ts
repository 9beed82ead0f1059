import { sql, type KyselyPlugin } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/store/accounts-queries.ts';
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
    for (const name of names)
      ids.push((await createAccount(t.store.db, { name, plan: n(name) === 2 ? 'pro' : 'free', now })).id);
    let builds = 0;
    const findByName = preparedQuery(
      (db, param, values: { name: string; plan?: string }) => {
        builds += 1;
        let query = db
          .selectFrom('accounts')
          .select(['id', 'plan'])
          .where('name', '=', param<string>('name'))
          .where('created_at', '>', 0);
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
    const findByName = preparedQuery((db, param, _values: { name: string }) =>
      db.selectFrom('accounts').select('id').where('name', '=', param<string>('name')),
    );
    expect(await findByName(t.store.db, { name })).toEqual([{ id: account.id }]);
    expect(await findByName(t.store.db.withPlugin(plugin), { name })).toEqual([{ id: account.id }]);
    expect(await findByName(t.store.db.withPlugin(plugin), { name: 'no such account' })).toEqual([]);
    expect(seen).toBe(2);
  });

  // PostgreSQL parses and plans a named statement once per connection (src/store/database.ts); Kysely's driver alone
  // would send every statement unnamed, parsed and planned on each run.
  it.runIf(process.env.CLARION_TEST_DIALECT === 'postgres')(
    'is kept prepared by each PostgreSQL connection, and prepared again on a new one',
    async () => {
      const now = Date.now();
      const name = `prepared-query named ${now}`;
      const account = await createAccount(t.store.db, { name, plan: 'free', now });
      const findByName = preparedQuery((db, param, _values: { name: string }) =>
        db.selectFrom('accounts').select('id').where('name', '=', param<string>('name')).where('plan', '=', 'free'),
      );
      const preparedHere = async (db: typeof t.store.db) =>
        (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows
          .map((row) => row.statement)
          .filter((text) => text.includes('"plan" = $2'));
      const backend = await t.store.db.connection().execute(async (connection) => {
        expect(await preparedHere(connection)).toEqual([]);
        expect(await findByName(connection, { name })).toEqual([{ id: account.id }]);
        expect(await findByName(connection, { name: 'no such account' })).toEqual([]);
        expect(await preparedHere(connection)).toHaveLength(1);
        return (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection)).rows[0]!.pid;
      });
      // The connection loses its session (ended from outside, as a restart or a proxy would): its replacement starts
      // with nothing prepared.
      const admin = new pg.Client({ connectionString: t.databaseUrl });
      await admin.connect();
      await admin.query('select pg_terminate_backend($1)', [backend]);
      await admin.end();
      for (let attempt = 0; attempt < 10; attempt += 1) {
        const outcome = await t.store.db.connection().execute(async (connection) => {
          try {
            return {
              pid: (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection)).rows[0]!.pid,
            };
          } catch {
            return { lost: true };
          }
        });
        if ('pid' in outcome && outcome.pid !== backend) break;
      }
      await t.store.db.connection().execute(async (connection) => {
        expect(await findByName(connection, { name })).toEqual([{ id: account.id }]);
        expect(await preparedHere(connection)).toHaveLength(1);
      });
    },
  );
});

function n(name: string): number {
  return Number(name.split(' ').at(-1));
}
