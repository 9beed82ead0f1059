// Memory and time of a fan-out: one notification to a channel of N subscribers (default 100,000, 300,000 and 1,000,000), each size
// with a fresh database and a fresh `clarion serve --worker` process, so its peak RSS (VmHWM) belongs to that size alone.
// Time should grow linearly in N and the peak should not grow with it. The fakes run in their own process with
// simulated provider latency.
//
//   node --import tsx bench/fanout-memory.ts [--subscribers 100000,300000,1000000] [--latency 20-50] [--concurrency N] [--postgres URL] [--quick]
//
// Ends with BENCH_RESULT {"sizes": [{subscribers, seconds, pushesPerSecond, idleRssMb, peakRssMb, cpuUsPerPush}], "peakRssMb", "secondsPer100k"}.
import { parseArgs } from 'node:util';
import { createBenchDatabase } from './harness/bench-database.ts';
import { printBenchResult, roundTo } from './harness/bench-result.ts';
import { deliverNotification } from './harness/deliver-notification.ts';
import { seedFanoutChannel } from './harness/fanout-channel.ts';
import { startFakes } from './harness/fakes-process.ts';
import { processCpuSeconds, processPeakRssMb, processRssMb } from './harness/process-usage.ts';
import { startWorkerProcess } from './harness/worker-process.ts';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '100000,300000,1000000' },
    latency: { type: 'string', default: '20-50' },
    concurrency: { type: 'string' },
    postgres: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const sizes = values.quick ? [2000, 6000] : values.subscribers!.split(',').map(Number);

const fakes = await startFakes({ latency: values.latency! });
const results: Array<{
  subscribers: number;
  seconds: number;
  pushesPerSecond: number;
  idleRssMb: number;
  peakRssMb: number;
  cpuUsPerPush: number;
  seedSeconds: number;
}> = [];
try {
  for (const size of sizes) {
    const bench = await createBenchDatabase(values.postgres);
    try {
      const seedStarted = performance.now();
      const channel = await seedFanoutChannel(bench.store, size);
      const seedSeconds = (performance.now() - seedStarted) / 1000;
      const worker = await startWorkerProcess({
        ...fakes.env,
        ...bench.env,
        ...(values.concurrency ? { CLARION_WORKER_CONCURRENCY: values.concurrency } : {}),
      });
      try {
        const idleRssMb = processRssMb(worker.pid);
        const cpuBefore = 1000 * processCpuSeconds(worker.pid);
        const delivery = await deliverNotification(bench, channel);
        const cpuMs = 1000 * processCpuSeconds(worker.pid) - cpuBefore;
        if (delivery.delivered !== size)
          throw new Error(`${size}: ${delivery.delivered} delivered, ${delivery.failed} failed`);
        const result = {
          subscribers: size,
          seconds: roundTo(delivery.seconds, 2),
          pushesPerSecond: Math.round(size / delivery.seconds),
          idleRssMb: roundTo(idleRssMb),
          peakRssMb: roundTo(processPeakRssMb(worker.pid)),
          cpuUsPerPush: roundTo((cpuMs * 1000) / size),
          seedSeconds: roundTo(seedSeconds, 1),
        };
        results.push(result);
        process.stderr.write(`${JSON.stringify(result)}\n`);
      } finally {
        await worker.stop();
      }
    } finally {
      await bench.drop();
    }
  }
} finally {
  await fakes.stop();
}

printBenchResult({
  dialect: values.postgres ? 'postgres' : 'sqlite',
  latencyMs: values.latency,
  sizes: results,
  peakRssMb: Math.max(...results.map((result) => result.peakRssMb)),
  secondsPer100k: results.map((result) => roundTo((result.seconds * 100_000) / result.subscribers, 2)),
});
