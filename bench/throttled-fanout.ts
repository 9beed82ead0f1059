// A throttled fan-out against its plan: a channel of N subscribers sent with throttlePerMinute R should take N / R
// minutes, however fast the providers are. The delivery worker runs in this process with the default settings a user
// runs (CLARION_QUEUE_POLL_INTERVAL 1 s, the default concurrency) against the fakes in their own process, with 20–50 ms
// of latency; SQLite, or PostgreSQL with --postgres.
//
//   node --import tsx bench/throttled-fanout.ts [--subscribers 100000] [--per-minute 100000] [--postgres URL] [--quick]
//
// Ends with BENCH_RESULT {"plannedSeconds", "seconds" (from accepting it to its last push settled), "offPlanPercent"
// ((seconds − planned) / planned × 100), "delivered", …}.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../src/config/load-config.ts';
import { resolveSecretKey } from '../src/config/secret-key.ts';
import { createPushProviders } from '../src/delivery/built-in-app.ts';
import { systemClock } from '../src/domain/clock.ts';
import { JobQueue } from '../src/queue/job-queue.ts';
import { startDeliveryWorker } from '../src/worker.ts';
import { ensureFakeTls } from '../tools/fakes/index.ts';
import { createBenchDatabase } from './harness/bench-database.ts';
import { printBenchResult, roundTo } from './harness/bench-result.ts';
import { deliverNotification } from './harness/deliver-notification.ts';
import { seedFanoutChannel } from './harness/fanout-channel.ts';
import { startFakes } from './harness/fakes-process.ts';

// The provider clients run in this process, so it must trust the fakes' CA from its start: re-run with it.
const caPath = ensureFakeTls().caCertPath;
if (process.env.NODE_EXTRA_CA_CERTS !== caPath) {
  const rerun = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caPath },
  });
  process.exit(rerun.status ?? 1);
}

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '100000' },
    'per-minute': { type: 'string', default: '100000' },
    latency: { type: 'string', default: '20-50' },
    postgres: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
// Quick: 2,000 at 12,000 a minute, ten seconds.
const size = values.quick ? 2000 : Number(values.subscribers);
const perMinute = values.quick ? 12_000 : Number(values['per-minute']);

const fakes = await startFakes({ latency: values.latency! });
const bench = await createBenchDatabase(values.postgres);
const channel = await seedFanoutChannel(bench.store, size);
const config = loadConfig({ ...process.env, ...fakes.env, ...bench.env });
const logger = pino({ level: 'warn' });
const providers = createPushProviders(config, systemClock, logger);
const worker = await startDeliveryWorker({
  store: bench.store,
  queue: JobQueue.forStore(bench.store, systemClock),
  clock: systemClock,
  config,
  logger,
  providers,
  secretKey: resolveSecretKey(config.secretKey, config.dataDir),
});
let result: Record<string, unknown>;
try {
  // The API wakes its worker when it accepts a notification; inserted here directly, the bench does it (each poll).
  const delivery = await deliverNotification(bench, channel, () => worker.pool.wake(), {
    throttlePerMinute: perMinute,
  });
  const plannedSeconds = (size * 60) / perMinute;
  const offPlanPercent = ((delivery.seconds - plannedSeconds) / plannedSeconds) * 100;
  process.stderr.write(
    `${size} subscribers at ${perMinute} a minute: planned ${plannedSeconds.toFixed(1)} s, took ${delivery.seconds.toFixed(2)} s (${offPlanPercent >= 0 ? '+' : ''}${offPlanPercent.toFixed(2)} %), ${delivery.delivered} delivered\n`,
  );
  result = {
    dialect: bench.store.dialect,
    subscribers: size,
    perMinute,
    queuePollIntervalMs: config.queuePollInterval,
    plannedSeconds: roundTo(plannedSeconds, 2),
    seconds: roundTo(delivery.seconds, 2),
    offPlanPercent: roundTo(offPlanPercent, 2),
    delivered: delivery.delivered,
    failed: delivery.failed,
  };
} finally {
  await worker.stop(1000);
  await Promise.all(Object.values(providers).map((provider) => provider.close()));
  await fakes.stop();
  await bench.drop();
}
printBenchResult(result);
