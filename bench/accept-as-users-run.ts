// The accept path as a user runs Clarion, against the way the other accept benchmarks isolate it: server CPU per
// accepted POST /api/v1/notifications (to a one-subscriber channel, so each accept also means one push), SQLite, the
// fakes in their own process with answers 20–50 ms late. Each configuration is its own `clarion serve` process;
// the rounds interleave them.
//   default       `clarion serve` as `npm start` runs it: both roles in one process (the worker delivers each
//                 notification), the log written to a file
//   default, no log  the same with the log discarded: what writing the log costs
//   api only      `clarion serve --api`, the log discarded: the accept alone, as bench/accept-throughput.ts runs it
// Each under two loads: a closed loop of --connections requests always in flight (autocannon), and an open loop at an
// even --rate (bench/harness/open-loop-load.ts), where fewer requests meet in one event-loop turn, so SQLite's group
// commit (src/store/sqlite/group-commit.ts) shares fewer COMMITs. The server's CPU is read once every push the phase's
// notifications made has reached the fakes, so the default's figure holds the delivery too. `npm start` itself adds
// an npm process that waits for its child and spends no CPU per request.
//
//   node --import tsx bench/accept-as-users-run.ts [--quick] [--seconds 10] [--connections 32] [--rate 300] [--rounds 2]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import {
  createBenchDatabase,
  ONE_PUSH_NOTIFICATION,
  seedAccount,
  seedOnePushChannel,
} from './harness/bench-database.ts';
import { median, printBenchResult, round, type BenchFigures } from './harness/bench-result.ts';
import { startClarion } from './harness/clarion-process.ts';
import { startFakes } from './harness/fakes-process.ts';
import { openLoopLoad } from './harness/open-loop-load.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    connections: { type: 'string' },
    rate: { type: 'string' },
    rounds: { type: 'string' },
  },
});
const seconds = Number(values.seconds ?? (values.quick ? 1 : 10));
const connections = Number(values.connections ?? 32);
const rate = Number(values.rate ?? (values.quick ? 100 : 300));
const rounds = Number(values.rounds ?? (values.quick ? 1 : 2));

type Configuration = 'default' | 'default, no log' | 'api only';
const configurations: Record<Configuration, { roles: Array<'api' | 'worker'>; log: boolean }> = {
  default: { roles: ['api', 'worker'], log: true },
  'default, no log': { roles: ['api', 'worker'], log: false },
  'api only': { roles: ['api'], log: false },
};
const loads = ['closed loop', 'open loop'] as const;
const IDLE_SAMPLE_MS = values.quick ? 500 : 3000;
const SETTLE_MS = values.quick ? 200 : 2000;

const fakes = await startFakes({ reportPushes: true });
const logDir = mkdtempSync(join(tmpdir(), 'clarion-bench-log-'));
const samples = new Map<string, number[]>();
const body = JSON.stringify(ONE_PUSH_NOTIFICATION);
let pushesExpected = 0;
try {
  for (let round_ = 0; round_ < rounds; round_ += 1) {
    for (const name of Object.keys(configurations) as Configuration[]) {
      const { roles, log } = configurations[name];
      // A database of its own each time: what an API-only process accepts is never delivered, and must not be left
      // for the next process's worker.
      const database = await createBenchDatabase(undefined);
      const account = await seedAccount(database.store);
      await seedOnePushChannel(database.store, account.accountId);
      const headers = { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' };
      const server = await startClarion({
        roles: [...roles],
        env: { ...database.env, ...fakes.env, CLARION_LOG_LEVEL: 'info' },
        ...(log ? { logFile: join(logDir, 'clarion.log') } : {}),
      });
      try {
        const delivers = roles.includes('worker');
        // Warm-up: the JIT, the caches, the provider connections.
        const warm = await autocannon({
          url: `${server.url}/api/v1/notifications`,
          method: 'POST',
          headers,
          body,
          connections,
          duration: 1,
        });
        if (delivers) pushesExpected += warm['2xx'];
        if (delivers) await fakes.waitForPushes(pushesExpected, 60_000);
        // The fakes count a push when it arrives; its answer and settling come after.
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        // What the process spends doing nothing (the worker's polls, timers): taken off the wait for the last pushes,
        // which the fakes report once a second, so a short phase is not charged for that second.
        const idleFrom = server.cpuSeconds();
        await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS));
        const idlePerMs = (server.cpuSeconds() - idleFrom) / IDLE_SAMPLE_MS;
        const idleKey = `${name}: idle server CPU (ms per second)`;
        samples.set(idleKey, [...(samples.get(idleKey) ?? []), idlePerMs * 1e6]);
        for (const load of loads) {
          const before = server.cpuSeconds();
          let accepted: number;
          if (load === 'closed loop') {
            const result = await autocannon({
              url: `${server.url}/api/v1/notifications`,
              method: 'POST',
              headers,
              body,
              connections,
              duration: seconds,
            });
            if (result.non2xx > 0 || result.errors > 0)
              throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
            accepted = result['2xx'];
          } else {
            const result = await openLoopLoad({
              url: server.url,
              rate,
              seconds,
              connections,
              request: { method: 'POST', path: '/api/v1/notifications', headers, body },
            });
            accepted = result.statuses['201'] ?? 0;
            if (accepted !== result.sent) throw new Error(`${name}: ${JSON.stringify(result.statuses)}`);
          }
          let waitCpu = 0;
          if (delivers) {
            pushesExpected += accepted;
            const loadEndedAt = Date.now();
            if (!(await fakes.waitForPushes(pushesExpected, 120_000)))
              throw new Error(`${name}: pushes did not all arrive`);
            waitCpu = idlePerMs * (Date.now() - loadEndedAt);
          }
          const usPerAccept = ((server.cpuSeconds() - before - waitCpu) / accepted) * 1e6;
          const key = `${name}, ${load}: server CPU per accept (µs)`;
          samples.set(key, [...(samples.get(key) ?? []), usPerAccept]);
          console.error(
            `round ${round_ + 1}, ${name}, ${load}: ${accepted} accepted, ${round(usPerAccept)} µs of server CPU each`,
          );
        }
      } finally {
        await server.stop();
        await database.drop();
      }
    }
  }
} finally {
  await fakes.stop();
  rmSync(logDir, { recursive: true, force: true });
}
const figures: BenchFigures = {};
for (const [key, values_] of samples) figures[key] = round(median(values_));
printBenchResult(figures);
