// Clarion's CPU per push against a bare node:http2 client sending the same pushes to the same fakes,
// in the same run, interleaved. The fakes run in their own process (tools/run-fakes.ts, with simulated provider latency),
// Clarion in one `clarion serve --worker` process; CPU is read per process from /proc, so neither the fakes nor this
// driver count. The database is SQLite in the worker's process (its CPU counts as Clarion's), or PostgreSQL (--postgres,
// whose server CPU is reported apart).
//
// `--platforms ios,android,web` spreads the channel in thirds over the platforms listed (subscriber n on
// platforms[n % count]); the web subscriptions are made at the fake Web Push service, which decrypts each push in its
// own process. The bare client sends the same pushes for the default `ios,android` mix and for `web` alone (its own
// RFC 8291 encryption and VAPID, to the channel's subscriptions, handed over in a JSON file); it must see every push
// delivered, else the run fails. For any other mix the figures are Clarion's alone, per push of that mix.
//
// `--receipts off` seeds the account with receipts off (docs/engagement.md): its pushes are then byte for byte the bare
// client's, which carries none; on (the default, as every new account) each push also carries its receipt, an HMAC
// and 93–115 bytes.
//
//   node --import tsx bench/fanout-cpu.ts [--subscribers 50000] [--runs 3] [--latency 20-50] [--concurrency 2] [--platforms ios,android]
//                                         [--receipts on|off] [--postgres URL] [--cpu-prof DIR] [--quick]
//
// `--cpu-prof DIR` writes a V8 CPU profile of the Clarion worker and of each bare client run into DIR.
//
// Ends with BENCH_RESULT {"pushesPerSecond", "clarionCpuUsPerPush", "bareCpuUsPerPush", "ratio", "dbCpuUsPerPush", "peakRssMb", …}.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateVapidKeyPair } from '../src/delivery/web-push/vapid-keys.ts';
import { platforms as knownPlatforms, type Platform } from '../src/domain/device-token.ts';
import { createBenchDatabase } from './harness/bench-database.ts';
import { median, printBenchResult, roundTo } from './harness/bench-result.ts';
import { deliverNotification } from './harness/deliver-notification.ts';
import { seedFanoutChannel } from './harness/fanout-channel.ts';
import { startFakes } from './harness/fakes-process.ts';
import { postgresDatabaseCpuSeconds, processCpuSeconds, processPeakRssMb } from './harness/process-usage.ts';
import { repoRoot } from './harness/repo-root.ts';
import { createWebSubscriptions } from './harness/web-subscriptions.ts';
import { startWorkerProcess } from './harness/worker-process.ts';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '50000' },
    runs: { type: 'string', default: '3' },
    latency: { type: 'string', default: '20-50' },
    concurrency: { type: 'string' },
    platforms: { type: 'string', default: 'ios,android' },
    receipts: { type: 'string', default: 'on' },
    postgres: { type: 'string' },
    'cpu-prof': { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const size = values.quick ? 2000 : Number(values.subscribers);
const runs = values.quick ? 1 : Number(values.runs);
const platforms = values.platforms!.split(',').map((name) => name.trim()) as Platform[];
for (const name of platforms)
  if (!knownPlatforms.includes(name)) throw new Error(`--platforms: unknown platform ${name}`);
/**
 * The bare client sends benchDevice's iOS and Android pushes, or one web push to each web subscription: comparable only
 * to a channel of exactly those.
 */
const bareMode = { 'ios,android': 'apns-fcm', web: 'web' }[platforms.join(',')] as 'apns-fcm' | 'web' | undefined;
const withBareClient = bareMode !== undefined;
const warmUpSize = Math.min(size, 4000);

const fakes = await startFakes({ latency: values.latency! });
const bench = await createBenchDatabase(values.postgres);
// Web subscribers are bound to the VAPID public key they were made with, so the workers get a pair fixed up front.
const vapid = platforms.includes('web') ? generateVapidKeyPair() : null;
const webSubscriptions = vapid ? await createWebSubscriptions(fakes, vapid.publicKey, webCount(size)) : [];
if (values.receipts !== 'on' && values.receipts !== 'off') throw new Error('--receipts: on or off');
const receipts = values.receipts === 'on';
const channel = await seedFanoutChannel(bench.store, size, { platforms, webSubscriptions, receipts });
const vapidEnv: Record<string, string> = vapid
  ? {
      CLARION_VAPID_PUBLIC_KEY: vapid.publicKey,
      CLARION_VAPID_PRIVATE_KEY: vapid.privateKey,
      CLARION_VAPID_SUBJECT: 'mailto:bench@example.com',
    }
  : {};
/** The channel's web subscriptions, handed to the bare client's web mode in a file. */
const handover = bareMode === 'web' ? mkdtempSync(join(tmpdir(), 'clarion-bench-fanout-')) : null;
const webSubscriptionsFile = handover ? join(handover, 'web-subscriptions.json') : '';
if (handover) writeFileSync(webSubscriptionsFile, JSON.stringify(webSubscriptions));
const workerEnv = {
  ...fakes.env,
  ...bench.env,
  ...(values.concurrency ? { CLARION_WORKER_CONCURRENCY: values.concurrency } : {}),
  ...vapidEnv,
};
const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
const worker = await startWorkerProcess(workerEnv, profile);
// One uncounted delivery first: JIT compilation, the TLS connections, the APNs JWT and the FCM OAuth exchange are a
// long-lived worker's start-up, not the cost of a push (the bare client does not count its set-up either). Its web
// subscribers reuse the first subscriptions (another channel, another account).
const warmUp = await seedFanoutChannel(bench.store, warmUpSize, { platforms, webSubscriptions, receipts });
await deliverNotification(bench, warmUp);

let peakRssMb = Number.NaN;
const clarion: Array<{ cpuUsPerPush: number; pushesPerSecond: number; dbCpuUsPerPush: number | null }> = [];
const bare: Array<{ cpuUsPerPush: number; pushesPerSecond: number }> = [];
try {
  for (let run = 1; run <= runs; run += 1) {
    const cpuBefore = 1000 * processCpuSeconds(worker.pid);
    const dbBefore = bench.databaseUrl ? 1000 * (await postgresDatabaseCpuSeconds(bench.databaseUrl)) : null;
    const delivery = await deliverNotification(bench, channel);
    const cpuMs = 1000 * processCpuSeconds(worker.pid) - cpuBefore;
    const dbMs =
      dbBefore === null || !bench.databaseUrl
        ? null
        : 1000 * (await postgresDatabaseCpuSeconds(bench.databaseUrl)) - dbBefore;
    if (delivery.delivered !== size)
      throw new Error(`run ${run}: ${delivery.delivered} of ${size} delivered, ${delivery.failed} failed`);
    clarion.push({
      cpuUsPerPush: (cpuMs * 1000) / size,
      pushesPerSecond: size / delivery.seconds,
      dbCpuUsPerPush: dbMs === null ? null : (dbMs * 1000) / size,
    });
    const bareResult = withBareClient ? await runBareClient() : null;
    if (bareResult)
      bare.push({ cpuUsPerPush: bareResult.cpuUsPerPush, pushesPerSecond: bareResult.pushes / bareResult.seconds });
    process.stderr.write(
      `run ${run} (${platforms.join(',')}): Clarion ${roundTo(clarion.at(-1)!.cpuUsPerPush)} µs/push, ${Math.round(clarion.at(-1)!.pushesPerSecond)} pushes/s` +
        `${dbMs === null ? '' : `, PostgreSQL ${roundTo((dbMs * 1000) / size)} µs/push`}` +
        `${bareResult ? `; bare ${bareResult.cpuUsPerPush} µs/push, ${Math.round(bare.at(-1)!.pushesPerSecond)} pushes/s` : ''}\n`,
    );
  }
} finally {
  peakRssMb = processPeakRssMb(worker.pid);
  await worker.stop();
  await fakes.stop();
  await bench.drop();
  if (handover) rmSync(handover, { recursive: true, force: true });
}

const clarionCpu = median(clarion.map((run) => run.cpuUsPerPush));
const bareCpu = withBareClient ? median(bare.map((run) => run.cpuUsPerPush)) : Number.NaN;
const dbRuns = clarion.flatMap((run) => (run.dbCpuUsPerPush === null ? [] : [run.dbCpuUsPerPush]));
printBenchResult({
  dialect: values.postgres ? 'postgres' : 'sqlite',
  subscribers: size,
  platforms: platforms.join(','),
  runs,
  latencyMs: values.latency,
  pushesPerSecond: Math.round(median(clarion.map((run) => run.pushesPerSecond))),
  pushesPerSecondRange: [
    Math.round(Math.min(...clarion.map((run) => run.pushesPerSecond))),
    Math.round(Math.max(...clarion.map((run) => run.pushesPerSecond))),
  ],
  clarionCpuUsPerPush: roundTo(clarionCpu),
  clarionCpuUsPerPushRange: [
    roundTo(Math.min(...clarion.map((run) => run.cpuUsPerPush))),
    roundTo(Math.max(...clarion.map((run) => run.cpuUsPerPush))),
  ],
  ...(withBareClient
    ? {
        bareCpuUsPerPush: roundTo(bareCpu),
        bareCpuUsPerPushRange: [
          roundTo(Math.min(...bare.map((run) => run.cpuUsPerPush))),
          roundTo(Math.max(...bare.map((run) => run.cpuUsPerPush))),
        ],
        barePushesPerSecond: Math.round(median(bare.map((run) => run.pushesPerSecond))),
        ratio: roundTo(clarionCpu / bareCpu, 2),
      }
    : {}),
  ...(dbRuns.length > 0 ? { dbCpuUsPerPush: roundTo(median(dbRuns)) } : {}),
  peakRssMb: roundTo(peakRssMb),
});

function runBareClient(): Promise<{ pushes: number; ok: number; seconds: number; cpuUsPerPush: number }> {
  return new Promise((resolve, reject) => {
    const mode = bareMode === 'web' ? ['--web-subscriptions', webSubscriptionsFile] : ['--count', String(size)];
    const child = spawn(
      process.execPath,
      [...profile, '--import', 'tsx', join(repoRoot, 'bench/fanout-bare-client.ts'), ...mode],
      {
        env: { ...process.env, ...fakes.env, ...vapidEnv },
        stdio: ['ignore', 'pipe', 'inherit'],
        cwd: repoRoot,
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      const line = /^BENCH_RESULT (.*)$/m.exec(output);
      if (code !== 0 || !line) return reject(new Error(`the bare client failed (${code}):\n${output}`));
      const result = JSON.parse(line[1]!) as { pushes: number; ok: number; seconds: number; cpuUsPerPush: number };
      // A push the provider refused costs less than one it took: the floor counts only a full delivery.
      if (result.ok !== result.pushes || result.pushes !== size)
        return reject(new Error(`the bare client had ${result.ok} of ${result.pushes} pushes delivered (${size} due)`));
      resolve(result);
    });
  });
}

/** How many of subscribers 0 … size − 1 are on the web (seedFanoutChannel's spread). */
function webCount(channelSize: number): number {
  let count = 0;
  for (let n = 0; n < channelSize; n += 1) if (platforms[n % platforms.length] === 'web') count += 1;
  return count;
}
