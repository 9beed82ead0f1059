import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { Store } from '../store/database.ts';
import { claimUnrelayedEvents, markEventsRelayed } from '../store/event-relay-queries.ts';
import { StorageOutageLog } from '../store/storage-outage-log.ts';
import { insertWebhookMessages, type NewWebhookMessage } from '../store/webhook-messages-queries.ts';
import { eventTypesOf, listEnabledEndpoints } from '../store/webhooks-queries.ts';
import { subscribesTo, webhookBody } from './webhook-events.ts';
import { enqueueWebhookAttempt } from './webhook-jobs.ts';
import { firstAttemptDelay } from './webhook-retry-policy.ts';

/**
 * Events → webhook messages. Events are written by their cause's own transaction (src/store/events-queries.ts) and
 * know nothing of webhooks; the relay turns them into one message per (event, subscribed endpoint) plus that
 * message's first delivery job, and marks the events relayed — all in ONE transaction. So:
 * - nothing is lost: an event is marked only in the transaction that created its messages and jobs; a crash
 *   before the commit leaves it unrelayed for the next pass;
 * - nothing is doubled: concurrent relays claim disjoint events (FOR UPDATE SKIP LOCKED on PostgreSQL, the single
 *   writer on SQLite), and UNIQUE (endpoint_id, event_id) refuses a second message for the same pair anyway;
 * - an endpoint only receives events that happened after it was created, and none while it is disabled.
 */
export const RELAY_BATCH_SIZE = 200;
/** Rows per INSERT: 200 × 12 columns stays far below SQLite's 32,766 bound parameters. */
const INSERT_CHUNK = 200;

export interface WebhookRelayDependencies {
  store: Store;
  queue: JobQueue;
  clock: Clock;
  schedule: readonly number[];
}

/** One relay pass over up to `limit` events; returns how many events it relayed. */
export async function relayEvents(deps: WebhookRelayDependencies, limit = RELAY_BATCH_SIZE): Promise<number> {
  return deps.store.db.transaction().execute(async (trx) => {
    const events = await claimUnrelayedEvents(trx, deps.store, limit);
    if (events.length === 0) return 0;
    const now = deps.clock.now();
    const runAt = now + firstAttemptDelay(deps.schedule);
    const endpoints = await listEnabledEndpoints(trx, [...new Set(events.map((event) => event.account_id))]);
    const messages: NewWebhookMessage[] = [];
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (endpoint.account_id !== event.account_id || endpoint.created_at > event.created_at) continue;
        if (!subscribesTo(eventTypesOf(endpoint), event.type)) continue;
        messages.push({
          id: newId('webhookMessage', now),
          account_id: event.account_id,
          endpoint_id: endpoint.id,
          event_id: event.id,
          event_type: event.type,
          payload: webhookBody(event.type, event.created_at, JSON.parse(event.data)),
          status: 'pending',
          attempt_count: 0,
          next_attempt_at: runAt,
          delivered_at: null,
          created_at: now,
          updated_at: now,
        });
      }
    }
    for (let start = 0; start < messages.length; start += INSERT_CHUNK) {
      const inserted = await insertWebhookMessages(trx, messages.slice(start, start + INSERT_CHUNK));
      for (const messageId of inserted) await enqueueWebhookAttempt(deps.queue, trx, { messageId, attempt: 1, runAt });
    }
    await markEventsRelayed(
      trx,
      events.map((event) => event.id),
      now,
    );
    return events.length;
  });
}

export interface WebhookRelay {
  /** Stops after the pass in progress, if any. */
  stop(): Promise<void>;
}

/**
 * The relay loop of a worker process: a pass every `intervalMs` (CLARION_QUEUE_POLL_INTERVAL, 1 s by default, so
 * an event reaches its endpoints' queues within about a second), and passes back to back while a backlog lasts.
 * One indexed query per interval when idle (the partial index events_unrelayed).
 */
export function startWebhookRelay(
  deps: WebhookRelayDependencies & { intervalMs: number; logger: Logger },
): WebhookRelay {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  const outage = new StorageOutageLog(deps.logger, {
    down: 'the database is unavailable: webhook events wait until it answers again (tried every interval)',
    back: 'the database answers again: the webhook relay resumes',
  });

  const pass = async () => {
    try {
      while (!stopped && (await relayEvents(deps)) === RELAY_BATCH_SIZE) {
        // a full batch: more may be waiting
      }
      outage.succeeded();
    } catch (error) {
      if (!outage.failed(error))
        deps.logger.error({ err: error }, 'webhook relay pass failed; retrying at the next interval');
    }
  };
  const tick = () => {
    if (stopped || running) return;
    clearTimeout(timer);
    running = pass().finally(() => {
      running = null;
      if (!stopped) timer = setTimeout(tick, deps.intervalMs);
    });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
