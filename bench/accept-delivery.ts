// Accept path with the worker in the same process (issue 11, goals 1 and 4): `clarion serve` with both roles, the
// fake APNs and FCM in a process of their own.
//   1. Latency to first push: POST /api/v1/notifications to a one-subscriber channel, for each 201 the time until
//      the fake first receives that notification (p50, p99, max): at 20 req/s (the pipeline alone, no backlog) and
//      at --rate (under load), with the server's CPU per notification, accepting and delivering included.
//   2. Accept latency beside a big fan-out: the --rate load while one notification goes to a channel of
//      --subscribers (100,000), against the same load with only those one-push notifications to deliver.
//
//   node --import tsx bench/accept-delivery.ts [--quick] [--postgres postgres://…] [--subscribers 100000] [--rate 500] [--seconds 10]
// CLARION_WORKER_THREAD=false|true in the environment chooses how the worker shares the process (src/worker-thread.ts).
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createBenchDatabase, seedAccount, seedChannel } from './harness/bench-database.ts';
import { printBenchResult, round, type BenchFigures } from './harness/bench-result.ts';
import { startClarion } from './harness/clarion-process.ts';
import { startFakes } from './harness/fakes-process.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, postgres: { type: 'string' }, subscribers: { type: 'string' }, rate: { type: 'string' }, seconds: { type: 'string' } },
});
const subscribers = Number(values.subscribers ?? (values.quick ? 1000 : 100_000));
const rate = Number(values.rate ?? (values.quick ? 100 : 500));
const seconds = Number(values.seconds ?? (values.quick ? 1 : 10));

const database = await createBenchDatabase(values.postgres);
const fakes = await startFakes({ reportPushes: true });
const figures: BenchFigures = {};
try {
  const account = await seedAccount(database.store);
  await seedChannel(database.store, account.accountId, { code: 'one', subscribers: 1, platform: 'android' });
  await seedChannel(database.store, account.accountId, { code: 'big', subscribers, platform: 'mixed' });
  const server = await startClarion({ roles: ['api', 'worker'], env: { ...database.env, ...fakes.env, CLARION_LOG_LEVEL: 'info' } });
  try {
    const headers = { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' };
    const acceptedAt = new Map<string, number>();
    const steadyLoad = (requestsPerSecond: number, duration: number) =>
      autocannon({
        url: server.url,
        connections: 50,
        duration,
        overallRate: requestsPerSecond,
        requests: [
          {
            method: 'POST',
            path: '/api/v1/notifications',
            headers,
            body: JSON.stringify({ channelCode: 'one', title: 'Order shipped', body: 'Your order #1234 is on its way.' }),
            onResponse: (status, body) => {
              if (status === 201) acceptedAt.set((JSON.parse(body) as { data: { id: string } }).data.id, Date.now());
            },
          },
        ],
      });
    /** Latencies from each 201 to the first push of that notification, once every push arrived (or 30 s passed). */
    const firstPushLatencies = async () => {
      const times = new Map(acceptedAt);
      const accepted = [...times.keys()];
      acceptedAt.clear();
      const pushed = () => accepted.filter((id) => fakes.firstPushAt.has(id)).length;
      const deadline = Date.now() + 30_000;
      while (pushed() < accepted.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const latencies = accepted.map((id) => fakes.firstPushAt.get(id)! - times.get(id)!).filter((value) => Number.isFinite(value));
      return { latencies: latencies.sort((a, b) => a - b), missing: accepted.length - latencies.length };
    };

    // 1a: a trickle, so the figure is the pipeline's own latency (wake-ups, claims, transactions), not a backlog.
    await steadyLoad(20, Math.max(1, seconds / 2));
    const trickle = await firstPushLatencies();
    figures['first push p50 after 201 at 20 req/s (ms)'] = percentile(trickle.latencies, 0.5);
    figures['first push p99 after 201 at 20 req/s (ms)'] = percentile(trickle.latencies, 0.99);

    // 1b and the baseline of 2: --rate, the worker delivering only these one-push notifications.
    const cpuBefore = server.cpuSeconds();
    const idle = await steadyLoad(rate, seconds);
    const accepted = acceptedAt.size;
    const loaded = await firstPushLatencies();
    // After every push of the phase arrived, so the CPU includes delivering all of them.
    figures['server CPU per notification, accepted and delivered (µs)'] = round(((server.cpuSeconds() - cpuBefore) / accepted) * 1e6);
    figures['accept p99 at steady rate, worker idle (ms)'] = idle.latency.p99;
    figures['first push p50 after 201 at steady rate (ms)'] = percentile(loaded.latencies, 0.5);
    figures['first push p99 after 201 at steady rate (ms)'] = percentile(loaded.latencies, 0.99);
    figures['first push max after 201 at steady rate (ms)'] = loaded.latencies.at(-1) ?? null;
    figures['notifications not pushed within 30 s'] = trickle.missing + loaded.missing;

    // 2: the same load while the worker fans one notification out to the big channel.
    const pushesBefore = fakes.pushCount();
    const big = await fetch(`${server.url}/api/v1/notifications`, { method: 'POST', headers, body: JSON.stringify({ channelCode: 'big', title: 'Sale', body: 'Everything must go.' }) });
    if (big.status !== 201) throw new Error(`the big notification got ${big.status}`);
    const fanoutStarted = Date.now();
    const busy = await steadyLoad(rate, seconds);
    const pushesDuring = fakes.pushCount() - pushesBefore;
    figures[`accept p99 at steady rate during a ${subscribers}-subscriber fan-out (ms)`] = busy.latency.p99;
    figures['accept p50 during the fan-out (ms)'] = busy.latency.p50;
    figures['pushes/s during the accept load'] = round(pushesDuring / ((Date.now() - fanoutStarted) / 1000));
    figures['steady rate (req/s)'] = rate;
    await fakes.waitForPushes(pushesBefore + subscribers, values.quick ? 30_000 : 300_000);
    figures['fan-out seconds (load during the first part)'] = round((Date.now() - fanoutStarted) / 1000);
  } finally {
    await server.stop();
  }
} finally {
  await fakes.stop();
  await database.drop();
}
console.error(JSON.stringify(figures));
printBenchResult(figures);

function percentile(sorted: number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}
