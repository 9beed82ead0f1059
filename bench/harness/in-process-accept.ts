import { loadConfig } from '../../src/config/load-config.ts';
import { resolveSecretKey } from '../../src/config/secret-key.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { buildApp } from '../../src/http/app.ts';
import type { ClarionApp } from '../../src/http/app-types.ts';
import { JobQueue } from '../../src/queue/job-queue.ts';
import type { BenchDatabase } from './bench-database.ts';

/**
 * The app in the benchmark's own process (inject, no socket), its rate limits out of the way, and `send()`: one
 * POST /api/v1/notifications of `body` with `secretKey` (and an Idempotency-Key when given) that must get its 201.
 * What the in-process accept benchmarks drive (accept-cpu.ts, accept-statements-postgres.ts, and accept-throughput.ts's
 * statement count), on an account and channel they seed (bench-database.ts).
 */
export async function inProcessAcceptApp(
  database: BenchDatabase,
  secretKey: string,
  body: string,
): Promise<{ app: ClarionApp; send: (idempotencyKey?: string) => Promise<void> }> {
  const config = loadConfig({
    ...database.env,
    CLARION_RATE_LIMIT_PER_SECOND: '100000',
    CLARION_RATE_LIMIT_BURST: '100000',
    // Reports (POST /receipts) come from every device of a channel, from one address here.
    CLARION_PUBLISHABLE_RATE_LIMIT_PER_ADDRESS: '100000',
    CLARION_PUBLISHABLE_RATE_LIMIT_BURST: '100000',
    CLARION_LOG_LEVEL: 'silent',
  });
  const queue = JobQueue.forStore(database.store, systemClock);
  const app = await buildApp({
    store: database.store,
    config,
    clock: systemClock,
    queue,
    secretKey: resolveSecretKey(config.secretKey, config.dataDir),
  });
  await app.ready();
  const send = async (idempotencyKey?: string) => {
    const headers = {
      authorization: `Bearer ${secretKey}`,
      'content-type': 'application/json',
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    };
    const response = await app.inject({ method: 'POST', url: '/api/v1/notifications', headers, payload: body });
    if (response.statusCode !== 201) throw new Error(`expected 201, got ${response.statusCode}: ${response.body}`);
  };
  return { app, send };
}
