import { sql } from 'kysely';
import type { Clock } from '../domain/clock.ts';
import type { Store } from '../store/database.ts';
import type { ClarionMetrics } from './clarion-metrics.ts';

/**
 * A scrape reuses the last reading for this long: several Prometheus servers (or a dashboard refresh) scraping at once
 * cost one query, and the query never runs more often than this whatever the scrape interval.
 */
const CACHE_MS = 5_000;

interface QueueRow {
  kind: string;
  state: string;
  due: number | boolean | string;
  jobs: number | string;
  oldest: number | string | null;
}

/**
 * The queue's gauges, read when Prometheus scrapes (never per request): unfinished jobs by kind and state, and the age
 * of the oldest due job. One GROUP BY over the available and running rows, which the (state, run_at, id) index of
 * migration 0002 finds without reading the finished jobs kept for a week (src/worker.ts). Registered by the process
 * that owns the database connection; a worker thread's metrics leave it out so the sum of both threads counts once.
 */
export function watchQueue(metrics: ClarionMetrics, store: Store, clock: Clock): void {
  let readAt = -Infinity;
  metrics.onScrape(async () => {
    const now = clock.now();
    if (now - readAt < CACHE_MS) return;
    readAt = now;
    const rows = (await store.db
      .selectFrom('jobs')
      .select(['kind', 'state'])
      .select(sql<boolean>`run_at <= ${now}`.as('due'))
      .select((eb) => eb.fn.countAll<number>().as('jobs'))
      .select((eb) => eb.fn.min<number>('run_at').as('oldest'))
      .where('state', 'in', ['available', 'running'])
      .groupBy([sql`1`, sql`2`, sql`3`]) // by position: PostgreSQL would see two different parameters in `run_at <= $n`
      .execute()) as QueueRow[];
    metrics.queueJobs.reset();
    let oldestDue: number | null = null;
    for (const row of rows) {
      const due = row.due === true || Number(row.due) === 1;
      const state = row.state === 'running' ? 'running' : due ? 'due' : 'scheduled';
      metrics.queueJobs.inc({ kind: row.kind, state }, Number(row.jobs));
      if (state === 'due' && row.oldest !== null) oldestDue = Math.min(oldestDue ?? Infinity, Number(row.oldest));
    }
    metrics.queueOldestDueAge.set(oldestDue === null ? 0 : Math.max(0, now - oldestDue) / 1000);
  });
}
