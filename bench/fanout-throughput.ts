// Fan-out benchmark: how fast one worker process delivers a notification to a large channel, and whether its
// memory stays flat as the channel grows (peak heap growth over the run, the fakes' request log cleared as it goes). Fake APNs and FCM run in this process on loopback (their cost is
// included), Clarion's worker runs in-process against a fresh SQLite file (or PostgreSQL with --postgres URL).
// Subscribers are spread evenly over --platforms (default: a third each on iOS, Android and the web); the fake Web
// Push service decrypts every message like a browser would, and that cost is included too.
//
//   npx tsx bench/fanout-throughput.ts [--subscribers 10000,40000] [--postgres postgres://…] [--concurrency 8] [--platforms ios,android,web]
//
// NODE_EXTRA_CA_CERTS must name the fakes' CA; the script re-executes itself with it set.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import pg from 'pg';
import { loadConfig } from '../src/config/load-config.ts';
import { resolveSecretKey } from '../src/config/secret-key.ts';
import { startDeliveryWorker } from '../src/worker.ts';
import { DISPATCH_NOTIFICATION } from '../src/delivery/job-kinds.ts';
import { createPushProviders } from '../src/delivery/push-providers.ts';
import { resolveVapidKeys } from '../src/delivery/web-push/vapid-keys.ts';
import { systemClock } from '../src/domain/clock.ts';
import { hashApiKey } from '../src/domain/api-key-secret.ts';
import { newId } from '../src/domain/ids.ts';
import { JobQueue } from '../src/queue/job-queue.ts';
import { createAccount } from '../src/store/accounts-store.ts';
import { createChannel } from '../src/store/channels-store.ts';
import { openStore } from '../src/store/database.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { createApnsSigningKey, ensureFakeTls, startFakeApns, startFakeFcm, startFakeWebPush, writeCredentialFile } from '../tools/fakes/index.ts';

const tls = ensureFakeTls();
if (process.env.NODE_EXTRA_CA_CERTS !== tls.caCertPath) {
  const result = spawnSync(process.execPath, process.execArgv.concat(process.argv.slice(1)), { stdio: 'inherit', env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.caCertPath } });
  process.exit(result.status ?? 1);
}

const { values } = parseArgs({
  options: { subscribers: { type: 'string', default: '10000,40000' }, postgres: { type: 'string' }, concurrency: { type: 'string', default: '8' }, platforms: { type: 'string', default: 'ios,android,web' } },
});
const sizes = values.subscribers!.split(',').map(Number);
const platforms = values.platforms!.split(',') as Array<'ios' | 'android' | 'web'>;

async function run(size: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clarion-bench-'));
  let databaseUrl: string | undefined;
  if (values.postgres) {
    const name = `clarion_bench_${Date.now()}`;
    const admin = new pg.Client({ connectionString: values.postgres });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(values.postgres);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  const store = openStore({ databaseUrl, dataDir });
  await migrateToLatest(store);
  const key = createApnsSigningKey();
  const apns = await startFakeApns({ keys: [key], topics: ['com.example.bench'] });
  const fcm = await startFakeFcm();
  const webPush = await startFakeWebPush();
  const account = fcm.createServiceAccount('bench');
  const config = {
    ...loadConfig({ CLARION_DATA_DIR: dataDir }),
    apnsUrl: apns.url,
    apnsKeyFile: writeCredentialFile(join(dataDir, 'apns.p8'), key),
    apnsKeyId: key.keyId,
    apnsTeamId: key.teamId,
    apnsTopic: 'com.example.bench',
    fcmUrl: fcm.url,
    fcmServiceAccountFile: writeCredentialFile(join(dataDir, 'fcm.json'), account),
    workerConcurrency: Number(values.concurrency),
    queuePollInterval: 50,
    // The fake Web Push service listens on loopback.
    allowPrivateAddresses: true,
  };
  const now = Date.now();
  const vapidKeys = await resolveVapidKeys(store.db, resolveSecretKey(config.secretKey, config.dataDir), config, now);
  const owner = await createAccount(store.db, { name: 'bench', plan: 'business', now });
  const channel = await createChannel(store.db, { accountId: owner.id, code: 'bench', name: 'bench', description: null, now });
  for (let start = 0; start < size; start += 500) {
    const rows = [];
    for (let n = start; n < Math.min(size, start + 500); n += 1) {
      const platform = platforms[n % platforms.length]!;
      const token =
        platform === 'ios' ? n.toString(16).padStart(64, '0') : platform === 'android' ? `bench-token-${n}` : JSON.stringify(webPush.subscribe({ applicationServerKey: vapidKeys.publicKey }).json);
      rows.push({
        id: newId('subscriber', now), account_id: owner.id, channel_id: channel.id, platform, token, token_hash: hashApiKey(token),
        push_to_start_token: null, timezone: null, locale: null, external_id: null, status: 'active' as const, unsubscribe_reason: null,
        created_at: now, updated_at: now, unsubscribed_at: null,
      });
    }
    await store.db.insertInto('subscribers').values(rows).execute();
  }

  const logger = pino({ level: 'warn' });
  const queue = JobQueue.forStore(store, systemClock, databaseUrl);
  const providers = createPushProviders(config, systemClock, logger, vapidKeys);
  global.gc?.();
  const baseline = process.memoryUsage().heapUsed;
  let peakHeap = baseline;
  const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);
  const notificationId = newId('notification', Date.now());
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await store.db.transaction().execute(async (trx) => {
    await trx.insertInto('notifications').values({
      id: notificationId, account_id: owner.id, channel_id: channel.id, channel_code: 'bench', title: 'Bench', body: 'Fan-out benchmark', url: null,
      data: null, image_url: null, sound: null, badge: null, priority: 'high', ttl_seconds: null, status: 'queued', send_at: null,
      recipient_count: size, delivered_count: 0, failed_count: 0, targeted_count: null, dispatches_pending: 1, deliver_at_local_time: null, canceled_at: null, failure_reason: null, created_at: Date.now(), updated_at: Date.now(),
    }).execute();
    await queue.enqueue(trx, { kind: DISPATCH_NOTIFICATION, payload: { notificationId } });
  });
  const worker = await startDeliveryWorker({ store, queue, clock: systemClock, config, logger, providers, secretKey: resolveSecretKey(config.secretKey, config.dataDir) });
  for (;;) {
    const row = await store.db.selectFrom('notifications').select(['status', 'delivered_count']).where('id', '=', notificationId).executeTakeFirstOrThrow();
    if (row.status === 'sent' || row.status === 'failed') break;
    // The fakes keep a record of every request; drop it so the heap figure measures Clarion, not the fakes.
    apns.reset();
    fcm.reset();
    webPush.reset();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  const final = await store.db.selectFrom('notifications').select(['delivered_count', 'failed_count']).where('id', '=', notificationId).executeTakeFirstOrThrow();
  console.log(
    `${store.dialect.padEnd(8)} subscribers=${size} delivered=${final.delivered_count} failed=${final.failed_count} ` +
      `time=${seconds.toFixed(2)}s rate=${Math.round(size / seconds)}/s cpu=${((cpu.user + cpu.system) / 1e6).toFixed(2)}s peakHeapGrowth=${((peakHeap - baseline) / 1048576).toFixed(1)}MiB`,
  );
  await worker.stop(1000);
  await Promise.all(Object.values(providers).map((provider) => provider.close()));
  await Promise.all([apns.close(), fcm.close(), webPush.close()]);
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}

console.log(`fan-out benchmark on ${new Date().toISOString()}, node ${process.version}, concurrency ${values.concurrency}, platforms ${platforms.join(',')}`);
for (const size of sizes) await run(size);
