// One Live Activity update to N iOS devices, per token against on an APNs broadcast channel (iOS 18). The
// fakes run in their own process (tools/run-fakes.ts, every answer 20–50 ms later), Clarion in one
// `clarion serve --worker` process on a SQLite file (or --postgres). For each mode the script seeds a channel of N iOS
// subscribers and an active activity (per token: N reported update tokens; broadcast: a channel created at the fake's
// channel management API), enqueues one update the way POST /live-activities/{id}/update does, and times it until no
// Live Activity job is left; provider requests are the fakes' own count of requests received.
//
//   node --import tsx bench/live-activity-broadcast.ts [--devices 100000] [--latency 20-50] [--postgres URL] [--quick]
//
// Ends with BENCH_RESULT {"devices", "tokens": {seconds, providerRequests}, "broadcast": {seconds, providerRequests}}.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  createApnsBroadcastConnection,
  createBroadcastChannel,
} from '../src/delivery/live-activities/apns-broadcast.ts';
import { enqueueLiveActivityPush } from '../src/delivery/live-activities/live-activity-jobs.ts';
import { liveActivityPushOf } from '../src/delivery/live-activities/live-activity-snapshot.ts';
import { systemClock } from '../src/domain/clock.ts';
import { deviceTokenHash } from '../src/domain/device-token.ts';
import { newId } from '../src/domain/ids.ts';
import { JobQueue } from '../src/queue/job-queue.ts';
import { createChannel } from '../src/store/channels-queries.ts';
import type { LiveActivityRow } from '../src/store/live-activities/live-activities-queries.ts';
import { createBenchDatabase, seedAccount, type BenchDatabase } from './harness/bench-database.ts';
import { printBenchResult, roundTo } from './harness/bench-result.ts';
import { startFakes, type FakesProcess } from './harness/fakes-process.ts';
import { startWorkerProcess } from './harness/worker-process.ts';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '100000' },
    latency: { type: 'string', default: '20-50' },
    postgres: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const devices = values.quick ? 1_000 : Number(values.devices);
const ROWS_PER_INSERT = 500;

const bench = await createBenchDatabase(values.postgres);
const fakes = await startFakes({ latency: values.latency, reportPushes: true });
const worker = await startWorkerProcess({ ...bench.env, ...fakes.env });
try {
  const account = await seedAccount(bench.store);
  const broadcast = await measure('broadcast', account.accountId);
  const tokens = await measure('tokens', account.accountId);
  const result = {
    devices,
    latencyMs: values.latency,
    store: values.postgres ? 'postgres' : 'sqlite',
    tokens,
    broadcast,
  };
  process.stderr.write(`${JSON.stringify(result, null, 2)}\n`);
  printBenchResult(result);
} finally {
  await worker.stop();
  await fakes.stop();
  await bench.drop();
}

async function measure(
  mode: 'tokens' | 'broadcast',
  accountId: string,
): Promise<{ seconds: number; providerRequests: number; seedSeconds: number }> {
  const seeding = performance.now();
  const activity = await seedActivity(bench, fakes, accountId, mode);
  const seedSeconds = (performance.now() - seeding) / 1000;
  const queue = JobQueue.forStore(bench.store, systemClock);
  await settled(fakes);
  const before = fakes.pushCount();
  const started = performance.now();
  await bench.store.db.transaction().execute(async (trx) => {
    const now = Date.now();
    const row = await trx
      .updateTable('live_activities')
      .set({
        push_timestamp: Math.floor(now / 1000) + 1,
        fields: JSON.stringify({ title: 'Bench', progress: 0.5 }),
        updated_at: now,
      })
      .where('id', '=', activity.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await enqueueLiveActivityPush(trx, queue, liveActivityPushOf(row, 'update', null), ['ios']);
  });
  for (;;) {
    const busy = await bench.store.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('kind', 'like', 'live_activity.%')
      .where('kind', '!=', 'live_activity.expire')
      .where('state', 'in', ['available', 'running'])
      .executeTakeFirstOrThrow();
    if (Number(busy.count) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await settled(fakes);
  return {
    seconds: roundTo(seconds, 3),
    providerRequests: fakes.pushCount() - before,
    seedSeconds: roundTo(seedSeconds, 1),
  };
}

/** The fakes report their count once a second: wait until two reports agree. */
async function settled(fakesProcess: FakesProcess): Promise<void> {
  let last = -1;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const count = fakesProcess.pushCount();
    if (count === last) return;
    last = count;
  }
}

async function seedActivity(
  database: BenchDatabase,
  fakesProcess: FakesProcess,
  accountId: string,
  mode: 'tokens' | 'broadcast',
): Promise<LiveActivityRow> {
  const { db } = database.store;
  const now = Date.now() - 1_000;
  const code = `live-${mode}`;
  const channel = await createChannel(db, { accountId, code, name: code, description: null, now });
  let apnsChannelId: string | null = null;
  if (mode === 'broadcast') {
    const env = fakesProcess.env;
    const connection = createApnsBroadcastConnection({
      pushUrl: env.CLARION_APNS_URL!,
      managementUrl: env.CLARION_APNS_MANAGEMENT_URL!,
      keyFile: env.CLARION_APNS_KEY_FILE!,
      keyId: env.CLARION_APNS_KEY_ID!,
      teamId: env.CLARION_APNS_TEAM_ID!,
      topic: env.CLARION_APNS_TOPIC!,
      environment: 'production',
      clock: systemClock,
      ca: readFileSync(env.NODE_EXTRA_CA_CERTS!),
    });
    const created = await createBroadcastChannel(connection);
    await connection.close();
    if (!created.ok) throw new Error(`creating the channel at the fake failed: ${JSON.stringify(created.outcome)}`);
    apnsChannelId = created.channelId;
  }
  const activity: LiveActivityRow = {
    id: newId('liveActivity', now),
    account_id: accountId,
    channel_id: channel.id,
    channel_code: code,
    template: 'progress',
    fields: JSON.stringify({ title: 'Bench', progress: 0.1 }),
    alert: null,
    stale_at: null,
    relevance_score: null,
    status: 'active',
    recipient_count: devices,
    created_at: now,
    send_at: null,
    started_at: now,
    updated_at: now,
    ended_at: null,
    dismiss_at: null,
    push_timestamp: Math.floor(now / 1000),
    delivery: mode,
    apns_channel_id: apnsChannelId,
    broadcast_count: mode === 'broadcast' ? devices : 0,
    stream_key: null,
    auto_end_after_ms: null,
    auto_end_status: null,
    received_count: 0,
    opened_count: 0,
    dismissed_count: 0,
    actions_count: 0,
    audience: null,
  };
  await db.insertInto('live_activities').values(activity).execute();
  for (let start = 0; start < devices; start += ROWS_PER_INSERT) {
    const subscribers = [];
    const tokens = [];
    for (let n = start; n < Math.min(devices, start + ROWS_PER_INSERT); n += 1) {
      const token = `${mode === 'tokens' ? 'a1' : 'b2'}${n.toString(16).padStart(62, '0')}`;
      const id = newId('subscriber', now);
      subscribers.push({
        id,
        account_id: accountId,
        channel_id: channel.id,
        platform: 'ios' as const,
        token,
        token_hash: deviceTokenHash(token),
        push_to_start_token: null,
        os_version: '18.2',
        timezone: null,
        locale: null,
        external_id: null,
        status: 'active' as const,
        unsubscribe_reason: null,
        created_at: now,
        updated_at: now,
        unsubscribed_at: null,
      });
      // Per token, every device has reported its activity's update token; on the channel, none needs one.
      if (mode === 'tokens')
        tokens.push({
          live_activity_id: activity.id,
          subscriber_id: id,
          token: `c3${n.toString(16).padStart(158, '0')}`,
          created_at: now,
          updated_at: now,
        });
    }
    await db.insertInto('subscribers').values(subscribers).execute();
    if (tokens.length > 0) await db.insertInto('live_activity_tokens').values(tokens).execute();
  }
  return activity;
}
