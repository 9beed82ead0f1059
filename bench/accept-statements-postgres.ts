// PostgreSQL's own CPU for the accept path's statements, statement by statement: the statements the
// app sends for one POST /api/v1/notifications are captured at node-postgres (text, name, parameters), then replayed
// in a loop on connections of this script's own, as named prepared statements like the app sends them, with fresh ids
// each time; the CPU counted is that of this benchmark database's backends and the server's background processes
// (bench/harness/process-usage.ts, postgresDatabaseCpuSeconds), per replayed accept. Variants take one thing away at a
// time (the NOTIFY, the context read), with and without a LISTENing connection on the database (a worker), so each
// thing's cost is the difference of interleaved pairs.
//
//   node --import tsx bench/accept-statements-postgres.ts --postgres postgres://… [--quick] [--accepts 3000] [--clients 4] [--rounds 2]
//     [--what-if 'DROP INDEX …; CREATE INDEX …']   # measured on a changed schema (this run's database only)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { JOBS_CHANNEL } from '../src/store/postgres/postgres-queue-driver.ts';
import {
  createBenchDatabase,
  ONE_PUSH_NOTIFICATION,
  seedAccount,
  seedOnePushChannel,
} from './harness/bench-database.ts';
import { printBenchResult, round, type BenchFigures } from './harness/bench-result.ts';
import { inProcessAcceptApp } from './harness/in-process-accept.ts';
import { postgresDatabaseCpuSeconds } from './harness/process-usage.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    postgres: { type: 'string' },
    accepts: { type: 'string' },
    clients: { type: 'string' },
    rounds: { type: 'string' },
    'what-if': { type: 'string' },
  },
});
if (!values.postgres) throw new Error('--postgres postgres://… is required');
const accepts = Number(values.accepts ?? (values.quick ? 200 : 3000));
const clients = Number(values.clients ?? 4);
const rounds = Number(values.rounds ?? (values.quick ? 1 : 2));

interface Captured {
  text: string;
  name?: string;
  values: unknown[];
}
const captured: Captured[] = [];
const clientPrototype = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
const query = clientPrototype.query;
clientPrototype.query = function (this: unknown, ...args: unknown[]) {
  const config = args[0] as string | { text: string; name?: string; values?: unknown[] };
  if (typeof config === 'object')
    captured.push({
      text: config.text,
      name: config.name,
      values: [...(config.values ?? (args[1] as unknown[]) ?? [])],
    });
  else captured.push({ text: config, values: [...((args[1] as unknown[]) ?? [])] });
  return query.apply(this, args);
};

const database = await createBenchDatabase(values.postgres);
const figures: BenchFigures = {};
try {
  const account = await seedAccount(database.store);
  await seedOnePushChannel(database.store, account.accountId);
  const { app, send } = await inProcessAcceptApp(database, account.secretKey, JSON.stringify(ONE_PUSH_NOTIFICATION));
  await send();
  captured.length = 0;
  await send();
  const first = captured.splice(0);
  await send();
  const second = captured.splice(0);
  await app.close();
  clientPrototype.query = query;
  if (first.length !== 2 || second.length !== 2)
    throw new Error(
      `expected 2 statements per accept, captured ${first.length}: ${first.map((c) => c.text).join('\n')}`,
    );
  const [context, accept] = first as [Captured, Captured];
  // String parameters that differ between two requests are the per-request ids (and keys made of them): made unique
  // on every replay. Times that differ are left as captured.
  const varying = accept.values.map((value, index) => typeof value === 'string' && value !== second[1]!.values[index]);
  const withoutNotify = {
    ...accept,
    name: `${accept.name}-no-notify`,
    text: accept.text.replace(/pg_notify\((\$\d+), ''\)/, '$1::text'),
  };
  if (withoutNotify.text === accept.text) throw new Error('no pg_notify in the accept statement');
  let serial = 0;
  const fresh = (statement: Captured) => {
    serial += 1;
    return {
      name: statement.name,
      text: statement.text,
      values: statement.values.map((value, index) => (varying[index] ? `${String(value)}-${serial}` : value)),
    };
  };
  // A schema change to measure before making it (e.g. an index made partial), run after the statements are captured.
  if (values['what-if']) await sql.raw(values['what-if']).execute(database.store.db);
  const roundTrip: Captured = { text: 'SELECT 1', name: 'select-1', values: [] };
  const variants: Array<{ label: string; statements: Captured[]; setting?: string }> = [
    { label: 'context read + accept statement (as now)', statements: [context, accept] },
    { label: 'accept statement alone', statements: [accept] },
    { label: 'accept statement without pg_notify', statements: [withoutNotify] },
    { label: 'context read alone', statements: [context] },
    { label: 'a round trip alone (SELECT 1)', statements: [roundTrip] },
    // Measured only, never shipped: a 201 must mean stored. What it leaves out is the commit's WAL flush.
    {
      label: 'accept statement alone, synchronous_commit off',
      statements: [accept],
      setting: 'SET synchronous_commit = off',
    },
  ];
  const pool = await Promise.all(
    Array.from({ length: clients }, async () => {
      const client = new pg.Client({ connectionString: database.databaseUrl });
      client.on('error', () => {}); // the database is dropped WITH (FORCE) if a run fails
      await client.connect();
      return client;
    }),
  );
  const measure = async (statements: Captured[], setting = 'RESET synchronous_commit') => {
    for (const client of pool) await client.query(setting);
    for (const client of pool) for (const statement of statements) await client.query(fresh(statement)); // prepares it
    const before = await postgresDatabaseCpuSeconds(database.databaseUrl!);
    let left = accepts;
    await Promise.all(
      pool.map(async (client) => {
        while (left > 0) {
          left -= 1;
          for (const statement of statements) await client.query(fresh(statement));
        }
      }),
    );
    return round((((await postgresDatabaseCpuSeconds(database.databaseUrl!)) - before) / accepts) * 1e6);
  };
  for (let r = 1; r <= rounds; r += 1) {
    for (const listen of [false, true]) {
      // A worker's LISTEN connection (src/store/postgres/postgres-queue-driver.ts): its backend is woken by each NOTIFY.
      const listener = listen ? new pg.Client({ connectionString: database.databaseUrl }) : undefined;
      await listener?.connect();
      await listener?.query(`LISTEN ${JOBS_CHANNEL}`);
      for (const { label, statements, setting } of variants) {
        const micros = await measure(statements, setting);
        const key = `round ${r}, ${listen ? 'a worker LISTENing' : 'no listener'}: ${label}`;
        figures[`${key}, database CPU per accept (µs)`] = micros;
        console.error(
          `${key}: ${micros} µs of database CPU per accept (load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`,
        );
      }
      await listener?.end();
    }
  }
  for (const client of pool) await client.end();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await database.drop();
}
printBenchResult(figures);
