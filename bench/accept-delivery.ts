// Accept path with the worker in the same process: `clarion serve` with both roles, the
// fake APNs and FCM in a process of their own.
//   1. Latency to first push: POST /api/v1/notifications to a one-subscriber channel, for each 201 the time until
//      the fake first receives that notification (p50, p99, max): at 20 req/s (the pipeline alone, no backlog) and
//      at --rate (under load), with the server's CPU per notification, accepting and delivering included.
//   2. Accept latency beside a big fan-out: the --rate load while one notification goes to a channel of
//      --subscribers (100,000), against the same load with only those one-push notifications to deliver. Beside it,
//      the floor: `GET /healthz` (no database, no worker code) at the same rate during the same fan-out; if the
//      floor is as high as the accepts, requests wait for the API's event loop or for a core, not for the accept's
//      own work (docs/performance.md, "The worker thread": on one loop, the worker's work holds the loop).
//   Every load is open-loop at an even rate, each request timed from when it was due (bench/harness/open-loop-load.ts).
//   Each phase also reports the API thread's event-loop delay (monitorEventLoopDelay through prom-client's default
//   metrics, read from /metrics before and after the phase: each scrape resets it) and how busy the machine's cores
//   were (/proc/stat), to tell a blocked event loop from a process waiting for a core, and the server's own view of
//   the phase's latency from its request histogram (bench/harness/server-latency.ts): the load generator's p99 beside
//   it tells a slow server from a crowded machine.
//
//   node --import tsx bench/accept-delivery.ts [--quick] [--postgres postgres://…] [--subscribers 100000] [--rate 500] [--seconds 10] [--connections 50] [--fakes-nice N] [--cpu-prof DIR] [--loop-probe]
// --loop-probe loads bench/harness/loop-probe.mjs into the server: each phase then also reports the API thread's
// event-loop turns in that thread's CPU time (a blocked loop, told apart from a process waiting for a core).
// --cpu-prof DIR writes the server's V8 CPU profile (every thread) to DIR when it stops (`node --cpu-prof`), for
// bench/harness/loop-stretches.ts.
// CLARION_WORKER_THREAD=false|true in the environment chooses how the worker shares the process (src/worker-thread.ts).
// --fakes-nice N runs the fakes at nice N: they stand for providers whose CPU is not this machine's, and on 2 cores
// their share otherwise comes out of the server's.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createBenchDatabase,
  ONE_PUSH_NOTIFICATION,
  seedAccount,
  seedChannel,
  seedOnePushChannel,
} from './harness/bench-database.ts';
import { printBenchResult, round, type BenchFigures } from './harness/bench-result.ts';
import { startClarion } from './harness/clarion-process.ts';
import { startFakes } from './harness/fakes-process.ts';
import { openLoopLoad, type OpenLoopResult } from './harness/open-loop-load.ts';
import { machineBusyCores } from './harness/process-usage.ts';
import { phaseLatency, routeBuckets } from './harness/server-latency.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    postgres: { type: 'string' },
    'fakes-nice': { type: 'string' },
    connections: { type: 'string' },
    subscribers: { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'loop-probe': { type: 'boolean', default: false },
  },
});
const subscribers = Number(values.subscribers ?? (values.quick ? 1000 : 100_000));
const rate = Number(values.rate ?? (values.quick ? 100 : 500));
const seconds = Number(values.seconds ?? (values.quick ? 1 : 10));
// --connections: at most this many requests in flight (the load's keep-alive connections).
const connections = Number(values.connections ?? 50);

/** The two routes whose server-side latency the phases read (bench/harness/server-latency.ts). */
const ACCEPT_ROUTE = { method: 'POST', url: '/api/v1/notifications', status: 201 };
const HEALTHZ_ROUTE = { method: 'GET', url: '/healthz', status: 200 };

const database = await createBenchDatabase(values.postgres);
const fakes = await startFakes({
  reportPushes: true,
  ...(values['fakes-nice'] ? { nice: Number(values['fakes-nice']) } : {}),
});
const figures: BenchFigures = {};
try {
  const account = await seedAccount(database.store);
  await seedOnePushChannel(database.store, account.accountId);
  await seedChannel(database.store, account.accountId, { code: 'big', subscribers, platform: 'mixed' });
  const metricsToken = 'bench-metrics-token-0123456789';
  const probeFile = values['loop-probe']
    ? join(mkdtempSync(join(tmpdir(), 'clarion-loop-probe-')), 'turns.json')
    : null;
  const nodeArgs = [
    ...(values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']] : []),
    ...(probeFile ? ['--import', new URL('./harness/loop-probe.mjs', import.meta.url).href] : []),
  ];
  const server = await startClarion({
    roles: ['api', 'worker'],
    env: {
      ...database.env,
      ...fakes.env,
      CLARION_LOG_LEVEL: 'info',
      CLARION_METRICS_TOKEN: metricsToken,
      ...(probeFile ? { BENCH_LOOP_PROBE_FILE: probeFile } : {}),
    },
    nodeArgs,
  });
  try {
    const headers = { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' };
    const acceptedAt = new Map<string, number>();
    const acceptRequest = {
      method: 'POST' as const,
      path: '/api/v1/notifications',
      headers,
      body: JSON.stringify(ONE_PUSH_NOTIFICATION),
      onResponse: (status: number, body: string) => {
        if (status === 201) acceptedAt.set((JSON.parse(body) as { data: { id: string } }).data.id, Date.now());
      },
    };
    const steadyLoad = (requestsPerSecond: number, duration: number) =>
      openLoopLoad({
        url: server.url,
        rate: requestsPerSecond,
        seconds: duration,
        connections,
        request: acceptRequest,
      });
    const healthzLoad = (requestsPerSecond: number, duration: number) =>
      openLoopLoad({
        url: server.url,
        rate: requestsPerSecond,
        seconds: duration,
        connections,
        request: { method: 'GET', path: '/healthz' },
      });
    /** The loop probe's turns since the previous call (null without --loop-probe). */
    const probeTurns = async (): Promise<Record<string, number> | null> => {
      if (!probeFile) return null;
      rmSync(probeFile, { force: true });
      process.kill(server.pid, 'SIGUSR2');
      while (!existsSync(probeFile)) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 20));
      return JSON.parse(readFileSync(probeFile, 'utf8')) as Record<string, number>;
    };
    /**
     * Runs a phase and measures around it: the API thread's event-loop delay (the scrape before resets prom-client's
     * histogram, the one after reads the phase's), the loop probe's turns, the server's CPU and the machine's busy
     * cores over the phase.
     */
    const measured = async <T>(name: string, phase: () => Promise<T>) => {
      const bucketsOf = (text: string, route = ACCEPT_ROUTE) =>
        routeBuckets(text, route.method, route.url, route.status);
      const textBefore = await scrapeMetrics(server.url, metricsToken);
      await probeTurns();
      // On the profile's clock (CLOCK_MONOTONIC, µs), to cut the phase out of it with loop-stretches.ts --from/--to.
      if (values['cpu-prof']) console.error(`phase ${name} from ${process.hrtime.bigint() / 1000n}`);
      const started = Date.now();
      const cpu = server.cpuSeconds();
      const machine = machineBusyCores();
      const result = await phase();
      const seconds = (Date.now() - started) / 1000;
      if (values['cpu-prof']) console.error(`phase ${name} to ${process.hrtime.bigint() / 1000n}`);
      const turns = await probeTurns();
      if (turns) console.error(`loop turns, ${name}: ${JSON.stringify(turns)}`);
      const serverCores = round((server.cpuSeconds() - cpu) / seconds);
      const machineCores = round(machine());
      const text = await scrapeMetrics(server.url, metricsToken);
      return {
        result,
        turns,
        loop: eventLoopDelay(text),
        serverSide: phaseLatency(bucketsOf(textBefore), bucketsOf(text)),
        healthzServerSide: phaseLatency(bucketsOf(textBefore, HEALTHZ_ROUTE), bucketsOf(text, HEALTHZ_ROUTE)),
        serverCores,
        machineCores,
      };
    };
    /** Latencies from each 201 to the first push of that notification, once every push arrived (or 30 s passed). */
    const firstPushLatencies = async () => {
      const times = new Map(acceptedAt);
      const accepted = [...times.keys()];
      acceptedAt.clear();
      const pushed = () => accepted.filter((id) => fakes.firstPushAt.has(id)).length;
      const deadline = Date.now() + 30_000;
      while (pushed() < accepted.length && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const latencies = accepted
        .map((id) => fakes.firstPushAt.get(id)! - times.get(id)!)
        .filter((value) => Number.isFinite(value));
      return { latencies: latencies.sort((a, b) => a - b), missing: accepted.length - latencies.length };
    };

    // 1a: a trickle, so the figure is the pipeline's own latency (wake-ups, claims, transactions), not a backlog.
    await steadyLoad(20, Math.max(1, seconds / 2));
    const trickle = await firstPushLatencies();
    figures['first push p50 after 201 at 20 req/s (ms)'] = percentile(trickle.latencies, 0.5);
    figures['first push p99 after 201 at 20 req/s (ms)'] = percentile(trickle.latencies, 0.99);

    // 1b and the baseline of 2: --rate, the worker delivering only these one-push notifications.
    const cpuBefore = server.cpuSeconds();
    const idlePhase = await measured('one-push load', () => steadyLoad(rate, seconds));
    const idle = idlePhase.result;
    const accepted = acceptedAt.size;
    const loaded = await firstPushLatencies();
    // After every push of the phase arrived, so the CPU includes delivering all of them.
    figures['server CPU per notification, accepted and delivered (µs)'] = round(
      ((server.cpuSeconds() - cpuBefore) / accepted) * 1e6,
    );
    figures['accept p99 at steady rate, worker idle (ms)'] = idle.latency.p99;
    figures['first push p50 after 201 at steady rate (ms)'] = percentile(loaded.latencies, 0.5);
    figures['first push p99 after 201 at steady rate (ms)'] = percentile(loaded.latencies, 0.99);
    figures['first push max after 201 at steady rate (ms)'] = loaded.latencies.at(-1) ?? null;
    figures['notifications not pushed within 30 s'] = trickle.missing + loaded.missing;
    phaseFigures('at steady rate, worker idle', idlePhase);

    // 2: the same load while the worker fans one notification out to the big channel.
    const pushesBefore = fakes.pushCount();
    const big = await fetch(`${server.url}/api/v1/notifications`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ channelCode: 'big', title: 'Sale', body: 'Everything must go.' }),
    });
    if (big.status !== 201) throw new Error(`the big notification got ${big.status}`);
    const fanoutStarted = Date.now();
    // Beside the accepts, the floor: the same rate of GET /healthz (no database, no worker code) at the same moments of
    // the same fan-out. Run after the accepts instead, it would miss the fan-out once the machine pushes 100,000 in
    // under 20 s.
    const busyPhase = await measured('fan-out', () =>
      Promise.all([steadyLoad(rate, seconds), healthzLoad(rate, seconds)]),
    );
    const [busy, floor] = busyPhase.result;
    const pushesDuring = fakes.pushCount() - pushesBefore;
    const busySeconds = (Date.now() - fanoutStarted) / 1000;
    figures[`accept p99 at steady rate during a ${subscribers}-subscriber fan-out (ms)`] = busy.latency.p99;
    figures['accept p50 during the fan-out (ms)'] = busy.latency.p50;
    figures['healthz p99 at steady rate during the fan-out (ms)'] = floor.latency.p99;
    figures['healthz p50 during the fan-out (ms)'] = floor.latency.p50;
    figures['server-side healthz p99 at most during the fan-out (ms)'] = busyPhase.healthzServerSide.p99AtMostMs;
    figures['pushes/s during the loads'] = round(pushesDuring / busySeconds);
    figures['fan-out still running at the end of the loads'] = pushesDuring < subscribers;
    figures['steady rate (req/s)'] = rate;
    phaseFigures('during the fan-out', { ...busyPhase, result: busy });

    // The fan-out alone, once the loads stopped: its throughput and CPU per push (null if it ended during the loads).
    const tailPushes = fakes.pushCount();
    const tailCpu = server.cpuSeconds();
    const tailStarted = Date.now();
    await fakes.waitForPushes(pushesBefore + subscribers, values.quick ? 30_000 : 300_000);
    figures['fan-out seconds (load during the first part)'] = round((Date.now() - fanoutStarted) / 1000);
    const tailPushed = fakes.pushCount() - tailPushes;
    figures['pushes/s after the loads'] =
      tailPushed > 1000 ? round(tailPushed / ((Date.now() - tailStarted) / 1000)) : null;
    figures['server CPU per push after the loads (µs)'] =
      tailPushed > 1000 ? round(((server.cpuSeconds() - tailCpu) / tailPushed) * 1e6) : null;
  } finally {
    await server.stop();
    if (probeFile) rmSync(dirname(probeFile), { recursive: true, force: true });
  }
} finally {
  await fakes.stop();
  await database.drop();
}
console.error(JSON.stringify(figures));
printBenchResult(figures);

/** A phase's event-loop delay and busy cores, and the loop probe's figures when it ran. */
function phaseFigures(
  phase: string,
  measured: {
    result: OpenLoopResult;
    turns: Record<string, number> | null;
    loop: { p99: number | null; max: number | null };
    serverSide: ReturnType<typeof phaseLatency>;
    serverCores: number;
    machineCores: number;
  },
): void {
  figures[`load generator's send lag p99 ${phase} (ms)`] = measured.result.sendLagP99;
  figures[`server-side p99 at most ${phase} (ms)`] = measured.serverSide.p99AtMostMs;
  figures[`server-side share within 25 ms ${phase}`] = measured.serverSide.shareWithinMs['25'] ?? null;
  figures[`server-side share within 50 ms ${phase}`] = measured.serverSide.shareWithinMs['50'] ?? null;
  figures[`event-loop delay p99 ${phase} (ms)`] = measured.loop.p99;
  figures[`event-loop delay max ${phase} (ms)`] = measured.loop.max;
  figures[`server cores busy ${phase}`] = measured.serverCores;
  figures[`machine cores busy ${phase}`] = measured.machineCores;
  loopTurnFigures(phase, measured.turns);
}

/** The loop probe's figures of a phase (bench/harness/loop-probe.mjs), when it ran. */
function loopTurnFigures(phase: string, turns: Record<string, number> | null): void {
  if (!turns) return;
  figures[`API thread CPU per loop turn p99 ${phase} (ms)`] = turns.cpuP99Ms;
  figures[`API thread CPU per loop turn max ${phase} (ms)`] = turns.cpuMaxMs;
  figures[`API thread share of its CPU in turns over 10 ms ${phase}`] = turns.cpuMsInAll
    ? round(turns.cpuMsInTurnsOver10Ms! / turns.cpuMsInAll)
    : null;
  figures[`API thread cores ${phase}`] = turns.threadCores;
}

/** The server's /metrics. A scrape also resets the event-loop delay figures (prom-client's default metrics). */
async function scrapeMetrics(url: string, token: string): Promise<string> {
  return (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
}

/** The API thread's event-loop delay since the previous scrape, ms, from a scrape's text. */
function eventLoopDelay(text: string): { p99: number | null; max: number | null } {
  const read = (name: string) => {
    const match = new RegExp(`^clarion_nodejs_eventloop_lag_${name}_seconds\\s+(\\S+)$`, 'm').exec(text);
    return match ? round(Number(match[1]) * 1000) : null;
  };
  return { p99: read('p99'), max: read('max') };
}

function percentile(sorted: number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}
