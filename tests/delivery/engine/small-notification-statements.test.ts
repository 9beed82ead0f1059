import { receiptKey } from '../../../src/domain/receipt.ts';
import { SqliteDatabase } from '../../../src/store/sqlite/sqlite-driver.ts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchNotificationHandler } from '../../../src/delivery/dispatch-job.ts';
import { DISPATCH_NOTIFICATION, SEND_BATCH } from '../../../src/delivery/job-kinds.ts';
import { createProviderClientRegistry } from '../../../src/delivery/provider-client-registry.ts';
import { sendBatchHandler } from '../../../src/delivery/send-batch-job.ts';
import { WorkerPool, type JobHandler } from '../../../src/queue/worker-pool.ts';
import { capturingLogger } from '../../harness/captured-logs.ts';
import { post } from '../../harness/requests.ts';
import { testDialect } from '../../harness/test-dialect.ts';
import {
  androidToken,
  finalNotification,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/**
 * What the worker sends to the database for one small notification (docs/performance.md, "Latency to first push"),
 * counted at the drivers: every better-sqlite3 statement run, every node-postgres `Client.query`, BEGIN and COMMIT
 * included. The counters are installed before the harness connects: src/store/database.ts wraps each PostgreSQL client's
 * `query` when it connects, so that the hot statements go as named statements, and a counter installed later would
 * miss them.
 */
interface SentStatement {
  text: string;
  /** Sent as a node-postgres named statement (parsed and planned once per connection). */
  named: boolean;
}
const sent: SentStatement[] = [];
let counting = false;

const clientPrototype = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
const pgQuery = clientPrototype.query;
clientPrototype.query = function (this: unknown, ...args: unknown[]) {
  const [first] = args;
  if (counting) {
    if (typeof first === 'string') sent.push({ text: first, named: false });
    else if (first && typeof first === 'object')
      sent.push({
        text: String((first as { text?: unknown }).text),
        named: typeof (first as { name?: unknown }).name === 'string',
      });
  }
  return pgQuery.apply(this, args);
};
const probe = new SqliteDatabase(':memory:');
const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<
  string,
  (...args: unknown[]) => unknown
>;
probe.close();
const sqliteMethods = Object.fromEntries(
  ['run', 'get', 'all', 'iterate'].map((method) => [method, statementPrototype[method]!]),
);
for (const [method, original] of Object.entries(sqliteMethods)) {
  statementPrototype[method] = function (this: { source: string }, ...args: unknown[]) {
    if (counting) sent.push({ text: this.source, named: false });
    return original.apply(this, args);
  };
}

let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(async () => {
  await h?.close();
  clientPrototype.query = pgQuery;
  Object.assign(statementPrototype, sqliteMethods);
});

const isTransactionControl = (text: string) => /^\s*(begin|commit|rollback)\b/i.test(text);

describe(`the worker's statements for a one-subscriber notification (${testDialect})`, () => {
  it('are one claim, the dispatch and the settle as one transaction each, and on PostgreSQL all named', async () => {
    const account = await h.newAccount({ channels: ['one'] });
    await registerSubscriber(h, account.publishableKey, 'one', 'android', androidToken(8_001));
    // The harness's worker stops; the notification waits for a worker of this test's own, with nothing else running
    // on the database: no poll, heartbeat or rescue within the test (an hour each), no webhook relay.
    await h.worker.stop(1_000);
    const accepted = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'one',
      title: 'Order shipped',
    });
    expect(accepted.statusCode).toBe(201);

    const { logger } = capturingLogger();
    const delivery = { store: h.store, queue: h.queue, clock: h.clock, logger };
    const registry = createProviderClientRegistry({
      store: h.store,
      config: h.config,
      clock: h.clock,
      logger,
      secretKey: h.secretKey,
      builtIn: h.providers,
    });
    const send = sendBatchHandler({
      ...delivery,
      providers: h.providers,
      providersFor: registry.providersFor,
      receiptKey: receiptKey(h.secretKey),
    });
    let settled!: () => void;
    const sendSettled = new Promise<void>((resolve) => (settled = resolve));
    const settlingSend: JobHandler = async (job, context) => {
      const result = await send(job, context);
      settled();
      return result;
    };
    const hour = 3_600_000;
    const pool = new WorkerPool({
      queue: h.queue,
      handlers: { [DISPATCH_NOTIFICATION]: dispatchNotificationHandler(delivery), [SEND_BATCH]: settlingSend },
      concurrency: 2,
      leaseMs: hour,
      pollIntervalMs: hour,
      rescueIntervalMs: hour,
      logger,
    });
    counting = true;
    try {
      await pool.start();
      await sendSettled;
    } finally {
      counting = false;
      await pool.stop(1_000);
      await registry.close();
    }
    expect(await finalNotification(h, account.secretKey, accepted.body.data.id as string)).toMatchObject({
      status: 'sent',
      stats: { delivered: 1 },
    });

    // The LISTEN of the PostgreSQL worker's wake-up connection is its start, not the notification's.
    const statements = sent.filter((statement) => !/^\s*LISTEN\b/.test(statement.text));
    const texts = statements.map((statement) => statement.text.replace(/\s+/g, ' ').trim());
    // The claim (no transaction around it), the dispatch's two reads and its one transaction (job completed, status and
    // dispatch count, targeted stats, the send job inserted leased, targeted count fixed), the send job's two reads
    // (the notification, its subscribers: the channel's app comes in its payload) and its settle (job completed,
    // counts, stats, last delivered, completion, stats read, event).
    expect(
      texts.filter((text) => /^begin/i.test(text)),
      texts.join('\n'),
    ).toHaveLength(2);
    expect(texts, texts.join('\n')).toHaveLength(21);
    if (testDialect === 'postgres') {
      expect(
        statements
          .filter((statement) => !statement.named && !isTransactionControl(statement.text))
          .map((statement) => statement.text),
      ).toEqual([]);
    }
  });
});
