// Scale-out: the same fan-out with 1, 2 and 4 `clarion serve --worker` processes sharing one PostgreSQL
// database: pushes/s, Clarion CPU per push (all workers), each process's share, and what the other parties spent per push
// (the PostgreSQL server's processes, the fakes' process) — which shows where the curve flattens and why.
//
//   node --import tsx bench/scale-out-workers.ts [--postgres postgres://postgres@127.0.0.1:5432/test] [--subscribers 100000]
//                                                [--workers 1,2,4] [--latency 20-50] [--concurrency N] [--quick]
//
// Ends with BENCH_RESULT {"runs": [{workers, pushesPerSecond, clarionCpuUsPerPush, perProcessCpuShare, postgresCpuUsPerPush, fakesCpuUsPerPush}]}.
import { parseArgs } from 'node:util';
import { createBenchDatabase } from './harness/bench-database.ts';
import { printBenchResult, roundTo } from './harness/bench-result.ts';
import { deliverNotification } from './harness/deliver-notification.ts';
import { seedFanoutChannel } from './harness/fanout-channel.ts';
import { startFakes } from './harness/fakes-process.ts';
import { postgresDatabaseCpuSeconds, processCpuSeconds } from './harness/process-usage.ts';
import { startWorkerProcess, type WorkerProcess } from './harness/worker-process.ts';

const { values } = parseArgs({
  options: {
    postgres: {
      type: 'string',
      default: process.env.CLARION_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    },
    subscribers: { type: 'string', default: '100000' },
    workers: { type: 'string', default: '1,2,4' },
    latency: { type: 'string', default: '20-50' },
    concurrency: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const size = values.quick ? 2000 : Number(values.subscribers);
const counts = values.quick ? [1, 2] : values.workers!.split(',').map(Number);

const fakes = await startFakes({ latency: values.latency! });
const bench = await createBenchDatabase(values.postgres);
const runs: Array<Record<string, unknown>> = [];
try {
  const channel = await seedFanoutChannel(bench.store, size);
  const warmUp = await seedFanoutChannel(bench.store, Math.min(size, 4000));
  for (const count of counts) {
    const env = {
      ...fakes.env,
      ...bench.env,
      ...(values.concurrency ? { CLARION_WORKER_CONCURRENCY: values.concurrency } : {}),
    };
    const workers: WorkerProcess[] = await Promise.all(Array.from({ length: count }, () => startWorkerProcess(env)));
    try {
      // Every process opens its provider connections and signs its tokens on its first batch: not part of the figure.
      await deliverNotification(bench, warmUp);
      const before = workers.map((worker) => 1000 * processCpuSeconds(worker.pid));
      const postgresBefore = 1000 * (await postgresDatabaseCpuSeconds(bench.databaseUrl!));
      const fakesBefore = 1000 * processCpuSeconds(fakes.pid);
      const delivery = await deliverNotification(bench, channel);
      const spent = workers.map((worker, index) => 1000 * processCpuSeconds(worker.pid) - before[index]!);
      const postgresMs = 1000 * (await postgresDatabaseCpuSeconds(bench.databaseUrl!)) - postgresBefore;
      const fakesMs = 1000 * processCpuSeconds(fakes.pid) - fakesBefore;
      if (delivery.delivered !== size)
        throw new Error(`${count} workers: ${delivery.delivered} of ${size} delivered, ${delivery.failed} failed`);
      const clarionMs = spent.reduce((sum, ms) => sum + ms, 0);
      const run = {
        workers: count,
        seconds: roundTo(delivery.seconds, 2),
        pushesPerSecond: Math.round(size / delivery.seconds),
        clarionCpuUsPerPush: roundTo((clarionMs * 1000) / size),
        // Each process's share of the pushes' CPU: even shares mean the queue spreads the batches evenly.
        perProcessCpuShare: spent.map((ms) => roundTo(ms / clarionMs, 2)),
        postgresCpuUsPerPush: roundTo((postgresMs * 1000) / size),
        fakesCpuUsPerPush: roundTo((fakesMs * 1000) / size),
      };
      runs.push(run);
      process.stderr.write(`${JSON.stringify(run)}\n`);
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  }
} finally {
  await fakes.stop();
  await bench.drop();
}
printBenchResult({ dialect: 'postgres', subscribers: size, latencyMs: values.latency, runs });
