// Shared pieces of the fan-out, memory, import and scale-out benchmarks (fanout-cpu.ts, fanout-memory.ts and the others): the fake
// providers in a process of their own, a fresh database seeded with a channel of N subscribers, `clarion serve --worker`
// processes, one notification delivered end to end, and per-process CPU and peak RSS read from /proc, so Clarion's cost
// is measured alone (neither the fakes nor this driver count). Not a benchmark itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DISPATCH_NOTIFICATION } from '../src/delivery/job-kinds.ts';
import { normalizeToken, type Platform } from '../src/domain/device-token.ts';
import { newId } from '../src/domain/ids.ts';
import { systemClock } from '../src/domain/clock.ts';
import { JobQueue } from '../src/queue/job-queue.ts';
import { createAccount } from '../src/store/accounts-store.ts';
import { createChannel } from '../src/store/channels-store.ts';
import { openStore, type Store } from '../src/store/database.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { importSubscribers, type SubscriberImport } from '../src/store/subscribers-store.ts';
import { postgresCpuSeconds, processCpuSeconds } from './harness/process-cpu.ts';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLARION_BIN = join(repoRoot, 'bin/clarion.js');

/** User + system CPU time of a live process (all its threads), in ms: bench/harness/process-cpu.ts in ms. */
export function processCpuMs(pid: number): number {
  return processCpuSeconds(pid) * 1000;
}

/**
 * CPU of every PostgreSQL server process on this machine (ms). Other clients of the same server (other test runs)
 * count too, so this is an upper bound of the benchmark's database CPU.
 */
export function postgresServerCpuMs(): number {
  return postgresCpuSeconds() * 1000;
}

/** Peak resident set size of a live process since it started (VmHWM), in MB. */
export function processPeakRssMb(pid: number): number {
  return statusMb(pid, 'VmHWM');
}

/** Resident set size of a live process now (VmRSS), in MB. */
export function processRssMb(pid: number): number {
  return statusMb(pid, 'VmRSS');
}

function statusMb(pid: number, field: string): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export interface FakesProcess {
  /** CLARION_APNS_*, CLARION_FCM_*, NODE_EXTRA_CA_CERTS for a worker (or the bare client). */
  env: Record<string, string>;
  pid: number;
  stop(): Promise<void>;
}

/** tools/run-fakes.ts on free ports, keeping no request records, with `latency` ("20-50", ms) per answer. */
export async function startFakesProcess(latency: string): Promise<FakesProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'clarion-bench-fakes-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'tools/run-fakes.ts'), '--apns-port', '0', '--fcm-port', '0', '--dir', dir, '--quiet', '--forget', '--latency', latency, '--apns-topic', 'com.example.bench'],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: repoRoot },
  );
  const env = await new Promise<Record<string, string>>((resolvePromise, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // run-fakes prints all its export lines in one write, NODE_EXTRA_CA_CERTS last.
      if (!output.includes('NODE_EXTRA_CA_CERTS')) return;
      const parsed: Record<string, string> = {};
      for (const match of output.matchAll(/^export (\w+)=(.*)$/gm)) parsed[match[1]!] = match[2]!.replace(/^'(.*)'$/, '$1');
      resolvePromise(parsed);
    });
    child.once('exit', (code) => reject(new Error(`the fakes exited (${code}) before starting`)));
  });
  return { env, pid: child.pid!, stop: () => stopChild(child).then(() => rmSync(dir, { recursive: true, force: true })) };
}

export interface BenchDatabase {
  store: Store;
  /** CLARION_DATA_DIR and, on PostgreSQL, CLARION_DATABASE_URL for the worker processes. */
  env: Record<string, string>;
  databaseUrl: string | undefined;
  drop(): Promise<void>;
}

/** A fresh SQLite file, or a fresh database beside `postgresUrl` (dropped afterwards), migrated. */
export async function createBenchDatabase(postgresUrl: string | undefined): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clarion-bench-'));
  let databaseUrl: string | undefined;
  let name: string | undefined;
  if (postgresUrl) {
    name = `clarion_bench_${process.pid}_${Date.now()}`;
    await adminQuery(postgresUrl, `CREATE DATABASE ${name}`);
    const url = new URL(postgresUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  const store = openStore({ databaseUrl, dataDir });
  await migrateToLatest(store);
  return {
    store,
    databaseUrl,
    env: { CLARION_DATA_DIR: dataDir, ...(databaseUrl ? { CLARION_DATABASE_URL: databaseUrl } : {}) },
    async drop() {
      await store.close();
      if (postgresUrl && name) await adminQuery(postgresUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function adminQuery(url: string, text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/** Subscriber n's platform and token: even iOS (hex), odd Android; the bare client sends to the same tokens. */
export function benchDevice(n: number): { platform: Platform; token: string } {
  return n % 2 === 0 ? { platform: 'ios', token: n.toString(16).padStart(64, '0') } : { platform: 'android', token: `bench-token-${n}` };
}

export interface BenchChannel {
  accountId: string;
  channelId: string;
  code: string;
  size: number;
}

/** An account with a channel of `size` subscribers, seeded with the store function `clarion subscribers import` uses. */
export async function seedChannel(store: Store, size: number): Promise<BenchChannel> {
  const now = Date.now();
  const account = await createAccount(store.db, { name: 'bench', plan: 'business', now });
  const channel = await createChannel(store.db, { accountId: account.id, code: 'bench', name: 'bench', description: null, now });
  for (let start = 0; start < size; start += 5000) {
    const rows: SubscriberImport[] = [];
    for (let n = start; n < Math.min(size, start + 5000); n += 1) {
      const device = benchDevice(n);
      const token = normalizeToken(device.platform, device.token);
      if (!token.ok) throw new Error(`bench token ${n} is invalid`);
      rows.push({ platform: device.platform, ...token.value, pushToStartToken: null, timezone: null, locale: null, externalId: null });
    }
    await store.db.transaction().execute((trx) => importSubscribers(trx, { accountId: account.id, channelId: channel.id, channelCode: channel.code, rows, events: false, now }));
  }
  return { accountId: account.id, channelId: channel.id, code: channel.code, size };
}

export interface WorkerProcess {
  pid: number;
  stop(): Promise<void>;
}

/** `clarion serve --worker`, resolved once it logged that its worker started. */
export async function startWorkerProcess(env: Record<string, string>, extraNodeArgs: string[] = []): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...extraNodeArgs, CLARION_BIN, 'serve', '--worker'], {
    env: { ...process.env, CLARION_LOG_LEVEL: 'info', CLARION_QUEUE_POLL_INTERVAL: '100ms', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: repoRoot,
  });
  let output = '';
  await new Promise<void>((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('delivery worker started')) resolvePromise();
      // Keep only the tail: a worker's log is not read after start, and errors show up at its end.
      if (output.length > 100_000) output = output.slice(-20_000);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before starting:\n${output.slice(-4000)}`)));
  });
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    if (/"level":(40|50|60)/.test(text)) process.stderr.write(text);
  });
  return { pid: child.pid!, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    child.once('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });
}

export interface Delivery {
  seconds: number;
  delivered: number;
  failed: number;
}

/**
 * Accepts one notification to the channel the way POST /notifications does (row + dispatch job in one transaction) and
 * waits until the workers have settled every subscriber. `onTick` runs on every poll (peak sampling).
 */
export async function deliverNotification(bench: BenchDatabase, channel: BenchChannel, onTick: () => void = () => {}): Promise<Delivery> {
  const { store } = bench;
  const queue = JobQueue.forStore(store, systemClock, bench.databaseUrl);
  const notificationId = newId('notification', Date.now());
  const started = performance.now();
  await store.db.transaction().execute(async (trx) => {
    const now = Date.now();
    await trx
      .insertInto('notifications')
      .values({
        id: notificationId, account_id: channel.accountId, channel_id: channel.channelId, channel_code: channel.code, title: 'Bench', body: 'Fan-out benchmark',
        url: null, data: null, image_url: null, sound: null, badge: null, priority: 'high', ttl_seconds: null, status: 'queued', send_at: null,
        recipient_count: channel.size, delivered_count: 0, failed_count: 0, targeted_count: null, dispatches_pending: 1, deliver_at_local_time: null,
        canceled_at: null, failure_reason: null, created_at: now, updated_at: now,
      })
      .execute();
    await queue.enqueue(trx, { kind: DISPATCH_NOTIFICATION, payload: { notificationId } });
  });
  for (;;) {
    onTick();
    const row = await store.db.selectFrom('notifications').select(['status', 'delivered_count', 'failed_count']).where('id', '=', notificationId).executeTakeFirstOrThrow();
    if (row.status === 'sent' || row.status === 'failed') {
      return { seconds: (performance.now() - started) / 1000, delivered: Number(row.delivered_count), failed: Number(row.failed_count) };
    }
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 25));
  }
}

