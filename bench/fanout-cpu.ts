// Goal 2 of issue 11: Clarion's CPU per push against a bare node:http2 client sending the same pushes to the same fakes,
// in the same run, interleaved. The fakes run in their own process (tools/run-fakes.ts, with simulated provider latency),
// Clarion in one `clarion serve --worker` process; CPU is read per process from /proc, so neither the fakes nor this
// driver count. The database is SQLite in the worker's process (its CPU counts as Clarion's), or PostgreSQL (--postgres,
// whose server CPU is reported apart).
//
//   node --import tsx bench/fanout-cpu.ts [--subscribers 50000] [--runs 3] [--latency 20-50] [--concurrency 2] [--postgres URL] [--quick]
//
// Ends with BENCH_RESULT {"pushesPerSecond", "clarionCpuUsPerPush", "bareCpuUsPerPush", "ratio", "dbCpuUsPerPush", "peakRssMb", …}.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createBenchDatabase,
  deliverNotification,
  median,
  postgresServerCpuMs,
  processCpuMs,
  processPeakRssMb,
  repoRoot,
  round,
  seedChannel,
  startFakesProcess,
  startWorkerProcess,
} from './fanout-harness.ts';
import { printBenchResult } from './harness/bench-result.ts';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '50000' },
    runs: { type: 'string', default: '3' },
    latency: { type: 'string', default: '20-50' },
    concurrency: { type: 'string' },
    postgres: { type: 'string' },
    'cpu-prof': { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const size = values.quick ? 2000 : Number(values.subscribers);
const runs = values.quick ? 1 : Number(values.runs);

const fakes = await startFakesProcess(values.latency!);
const bench = await createBenchDatabase(values.postgres);
const channel = await seedChannel(bench.store, size);
const workerEnv = { ...fakes.env, ...bench.env, ...(values.concurrency ? { CLARION_WORKER_CONCURRENCY: values.concurrency } : {}) };
const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
const worker = await startWorkerProcess(workerEnv, profile);
// One uncounted delivery first: JIT compilation, the TLS connections, the APNs JWT and the FCM OAuth exchange are a
// long-lived worker's start-up, not the cost of a push (the bare client does not count its set-up either).
const warmUp = await seedChannel(bench.store, Math.min(size, 4000));
await deliverNotification(bench, warmUp);

let peakRssMb = Number.NaN;
const clarion: Array<{ cpuUsPerPush: number; pushesPerSecond: number; dbCpuUsPerPush: number | null }> = [];
const bare: Array<{ cpuUsPerPush: number; pushesPerSecond: number }> = [];
try {
  for (let run = 1; run <= runs; run += 1) {
    const cpuBefore = processCpuMs(worker.pid);
    const dbBefore = values.postgres ? postgresServerCpuMs() : null;
    const delivery = await deliverNotification(bench, channel);
    const cpuMs = processCpuMs(worker.pid) - cpuBefore;
    const dbMs = dbBefore === null ? null : postgresServerCpuMs() - dbBefore;
    if (delivery.delivered !== size) throw new Error(`run ${run}: ${delivery.delivered} of ${size} delivered, ${delivery.failed} failed`);
    clarion.push({ cpuUsPerPush: (cpuMs * 1000) / size, pushesPerSecond: size / delivery.seconds, dbCpuUsPerPush: dbMs === null ? null : (dbMs * 1000) / size });
    const bareResult = await runBareClient();
    bare.push({ cpuUsPerPush: bareResult.cpuUsPerPush, pushesPerSecond: bareResult.pushes / bareResult.seconds });
    process.stderr.write(
      `run ${run}: Clarion ${round(clarion.at(-1)!.cpuUsPerPush)} µs/push, ${Math.round(clarion.at(-1)!.pushesPerSecond)} pushes/s` +
        `${dbMs === null ? '' : `, PostgreSQL ${round((dbMs * 1000) / size)} µs/push`}; bare ${bareResult.cpuUsPerPush} µs/push, ${Math.round(bare.at(-1)!.pushesPerSecond)} pushes/s\n`,
    );
  }
} finally {
  peakRssMb = processPeakRssMb(worker.pid);
  await worker.stop();
  await fakes.stop();
  await bench.drop();
}

const clarionCpu = median(clarion.map((run) => run.cpuUsPerPush));
const bareCpu = median(bare.map((run) => run.cpuUsPerPush));
const dbRuns = clarion.flatMap((run) => (run.dbCpuUsPerPush === null ? [] : [run.dbCpuUsPerPush]));
printBenchResult({
  dialect: values.postgres ? 'postgres' : 'sqlite',
  subscribers: size,
  runs,
  latencyMs: values.latency,
  pushesPerSecond: Math.round(median(clarion.map((run) => run.pushesPerSecond))),
  pushesPerSecondRange: [Math.round(Math.min(...clarion.map((run) => run.pushesPerSecond))), Math.round(Math.max(...clarion.map((run) => run.pushesPerSecond)))],
  clarionCpuUsPerPush: round(clarionCpu),
  clarionCpuUsPerPushRange: [round(Math.min(...clarion.map((run) => run.cpuUsPerPush))), round(Math.max(...clarion.map((run) => run.cpuUsPerPush)))],
  bareCpuUsPerPush: round(bareCpu),
  bareCpuUsPerPushRange: [round(Math.min(...bare.map((run) => run.cpuUsPerPush))), round(Math.max(...bare.map((run) => run.cpuUsPerPush)))],
  barePushesPerSecond: Math.round(median(bare.map((run) => run.pushesPerSecond))),
  ratio: round(clarionCpu / bareCpu, 2),
  ...(dbRuns.length > 0 ? { dbCpuUsPerPush: round(median(dbRuns)) } : {}),
  peakRssMb: round(peakRssMb),
});

function runBareClient(): Promise<{ pushes: number; seconds: number; cpuUsPerPush: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench/fanout-bare-client.ts'), '--count', String(size)], {
      env: { ...process.env, ...fakes.env },
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: repoRoot,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      const line = /^BENCH_RESULT (.*)$/m.exec(output);
      if (code !== 0 || !line) return reject(new Error(`the bare client failed (${code}):\n${output}`));
      resolve(JSON.parse(line[1]!));
    });
  });
}
