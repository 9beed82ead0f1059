import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { claimDueJobs } from '../claim-due-jobs.ts';
import type { QueueDriver } from '../queue-driver.ts';
import { pgModule } from './pg-module.ts';

/** The LISTEN/NOTIFY channel of the queue's wake-ups (also notified by store-accepted-notification.ts). */
export const JOBS_CHANNEL = 'clarion_jobs';
/** Built once: it runs with every enqueue, i.e. on every accepted notification. */
const ANNOUNCE = CompiledQuery.raw(`SELECT pg_notify('${JOBS_CHANNEL}', '')`);
/**
 * Pauses before opening a lost LISTEN connection again: doubling from the first to the last while the database stays
 * away. Meanwhile nothing is missed for long: the worker's poll (CLARION_QUEUE_POLL_INTERVAL) still finds the work.
 */
const RELISTEN_MIN_MS = 500;
const RELISTEN_MAX_MS = 10_000;

/**
 * PostgreSQL: `FOR UPDATE SKIP LOCKED` lets any number of workers on any number of machines claim concurrently,
 * each getting different jobs without waiting on each other. Enqueueing sends NOTIFY inside the enqueueing
 * transaction (PostgreSQL delivers it on commit), and each worker LISTENs on a dedicated connection.
 */
export function postgresQueueDriver(databaseUrl: string): QueueDriver {
  return {
    claim: (db, input) => claimDueJobs(db, input, true),
    async announce(db) {
      await db.executeQuery(ANNOUNCE);
    },
    listen: (onWake, logger) => listenForWakeUps(databaseUrl, onWake, logger),
  };
}

/**
 * The worker's LISTEN connection, opened again whenever it is lost (PostgreSQL restarted or failed over, the
 * connection was dropped), so that a worker in another process than the API keeps being woken at once and does not
 * fall back to polling for the rest of its life. On its return it wakes the worker once: work announced while it was
 * gone was announced to no one. The first connection must open (the worker does not start without it); later ones
 * are tried again with backoff until the worker stops.
 */
async function listenForWakeUps(url: string, onWake: () => void, logger: Logger): Promise<() => Promise<void>> {
  const stop = new AbortController();
  let listening: pg.Client | null = null;
  let reopening: Promise<void> | null = null;

  const connect = async (): Promise<pg.Client> => {
    const client = new (pgModule().Client)({ connectionString: url });
    let failure: Error | null = null;
    // A loss always ends in 'end' (after 'error', when there was one), handled there; an 'error' event without a
    // listener would end the process.
    client.on('error', (error) => (failure ??= error));
    client.on('notification', () => onWake());
    client.once('end', () => {
      if (listening !== client || stop.signal.aborted) return;
      listening = null;
      reopening = reopen(failure ?? new Error('the LISTEN connection was closed'));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}`);
      return client;
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
  };
  const reopen = async (lost: Error): Promise<void> => {
    logger.warn({ err: lost }, 'the LISTEN connection was lost; opening it again (the poll finds new jobs meanwhile)');
    for (let delayMs = RELISTEN_MIN_MS; ; delayMs = Math.min(delayMs * 2, RELISTEN_MAX_MS)) {
      await sleep(delayMs, undefined, { signal: stop.signal }).catch(() => {});
      if (stop.signal.aborted) return;
      const client = await connect().catch(() => null);
      if (!client) continue;
      if (stop.signal.aborted) {
        await client.end().catch(() => {});
        return;
      }
      listening = client;
      logger.info('the LISTEN connection is open again');
      onWake();
      return;
    }
  };

  listening = await connect();
  return async () => {
    stop.abort();
    await reopening;
    await listening?.end().catch(() => {});
  };
}
