// Accept-path CPU in one process, for comparing code changes on a busy machine: the app is built
// in this process and driven through inject() — no HTTP, no load generator, no other process — in waves of 50
// concurrent POST /api/v1/notifications (so SQLite's group commit shares transactions as under load). It reports
// this process's CPU time (user + system) per accepted request and the SQL statements per request; with --postgres
// also the CPU of the PostgreSQL processes working for the benchmark's own database over the same requests (its
// backends and the server's background processes; other databases' backends are left out).
// CPU time, not wall time, is what a change moves here; run `node --cpu-prof --import tsx bench/accept-cpu.ts` for
// a profile.
//
//   node --import tsx bench/accept-cpu.ts [--quick] [--postgres postgres://…] [--requests 6000] [--rounds 3]
import { parseArgs } from 'node:util';
import {
  benchDialects,
  createBenchDatabase,
  ONE_PUSH_NOTIFICATION,
  seedAccount,
  seedOnePushChannel,
} from './harness/bench-database.ts';
import { median, printBenchResult, round, type BenchFigures } from './harness/bench-result.ts';
import { inProcessAcceptApp } from './harness/in-process-accept.ts';
import { postgresDatabaseCpuSeconds } from './harness/process-usage.ts';
import { countStatements } from './harness/statement-counter.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    postgres: { type: 'string' },
    requests: { type: 'string' },
    rounds: { type: 'string' },
  },
});
const requests = Number(values.requests ?? (values.quick ? 200 : 6000));
const rounds = Number(values.rounds ?? (values.quick ? 1 : 3));
const wave = 50;
const counter = countStatements();
const figures: BenchFigures = {};
const body = JSON.stringify({ ...ONE_PUSH_NOTIFICATION, data: { orderId: '1234' } });

for (const dialect of benchDialects(values.postgres)) {
  const database = await createBenchDatabase(dialect === 'postgres' ? values.postgres : undefined);
  try {
    const account = await seedAccount(database.store);
    await seedOnePushChannel(database.store, account.accountId);
    const { app, send } = await inProcessAcceptApp(database, account.secretKey, body);
    const run = async (count: number) => {
      for (let sent = 0; sent < count; sent += wave)
        await Promise.all(Array.from({ length: Math.min(wave, count - sent) }, send));
    };
    await send();
    counter.reset();
    for (let n = 0; n < 20; n += 1) await send();
    figures[`${dialect} statements per notification`] = counter.count() / 20;
    await run(requests); // warm-up: JIT, caches
    const serverUs: number[] = [];
    const databaseUs: number[] = [];
    for (let round_ = 0; round_ < rounds; round_ += 1) {
      const databaseBefore = database.databaseUrl ? await postgresDatabaseCpuSeconds(database.databaseUrl) : 0;
      const before = process.cpuUsage();
      await run(requests);
      const used = process.cpuUsage(before);
      serverUs.push((used.user + used.system) / requests);
      if (database.databaseUrl)
        databaseUs.push((((await postgresDatabaseCpuSeconds(database.databaseUrl)) - databaseBefore) * 1e6) / requests);
    }
    await app.close();
    figures[`${dialect} server CPU per request (µs)`] = round(median(serverUs));
    figures[`${dialect} server CPU per request, range (µs)`] = serverUs.map(round);
    if (dialect === 'postgres') figures[`${dialect} database CPU per request (µs)`] = round(median(databaseUs));
    console.error(`${dialect}: ${JSON.stringify(figures)}`);
  } finally {
    await database.drop();
  }
}
printBenchResult(figures);
