import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../../src/config/load-config.ts';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/worker.ts';
import type { ClarionMetrics } from '../../src/metrics/clarion-metrics.ts';
import { createPushProviders } from '../../src/delivery/built-in-app.ts';
import { newId } from '../../src/domain/ids.ts';
import { sealSecret } from '../../src/domain/secret-box.ts';
import { insertWebhookMessages } from '../../src/store/webhook-messages-queries.ts';
import { insertWebhook } from '../../src/store/webhooks-queries.ts';
import { webhookBody } from '../../src/webhooks/webhook-events.ts';
import { generateWebhookSecret } from '../../src/webhooks/webhook-signature.ts';
import { post } from '../harness/requests.ts';
import { RETRY_JITTER } from '../../src/webhooks/webhook-retry-policy.ts';
import { startTestApp, type TestApp } from '../harness/test-app.ts';
import { capturingLogger } from '../harness/captured-logs.ts';

/**
 * Webhook tests: the app with private webhook URLs allowed (receivers run on 127.0.0.1; the SSRF tests turn it
 * off), a retry schedule in seconds that tests walk through by advancing the ManualClock, and a 1 s attempt
 * timeout so a hanging receiver costs one real second.
 */
export const TEST_SCHEDULE = [0, 1_000, 2_000, 5_000];
export const TEST_TIMEOUT_MS = 1_000;

/** How far to move the clock for a retry `delayMs` away on the schedule to be due, whatever its jitter drew. */
export function throughJitter(delayMs: number): number {
  return Math.ceil(delayMs * (1 + RETRY_JITTER));
}

export function webhookConfig(overrides: Partial<Config> = {}): Partial<Config> {
  return {
    allowPrivateWebhooks: true,
    webhookRetrySchedule: TEST_SCHEDULE,
    webhookTimeout: TEST_TIMEOUT_MS,
    queuePollInterval: 20,
    ...overrides,
  };
}

/**
 * On PostgreSQL each webhook test file gets a database of its own: workers of other files (with their own clocks)
 * would otherwise relay this file's events and run its attempts, and this file's worker theirs.
 */
export async function startWebhookApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  return startTestApp(webhookConfig(overrides), { isolatedDatabase: true });
}

export interface TestWorker {
  worker: DeliveryWorker;
  logs: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** A delivery worker (relay + webhook jobs) on the test app's database, clock and secret key. */
export async function startWebhookWorker(
  t: TestApp,
  overrides: Partial<Config> = {},
  metrics?: ClarionMetrics,
): Promise<TestWorker> {
  const config: Config = { ...t.config, ...webhookConfig(overrides) };
  const { logger, logs } = capturingLogger();
  const providers = createPushProviders(config, t.clock, logger);
  const worker = await startDeliveryWorker({
    store: t.store,
    queue: t.queue,
    clock: t.clock,
    config,
    logger,
    providers,
    secretKey: t.secretKey,
    metrics,
  });
  return {
    worker,
    logs,
    async stop() {
      await worker.stop(1_000);
      await Promise.all(Object.values(providers).map((provider) => provider.close()));
    },
  };
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status this request was answered with; null while held or when it hung. */
  status: number | null;
}

/** How a receiver answers one request: a status (and optional body and headers), or 'hang' (never answer). */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Replace how the following requests are answered. */
  answer(next: (request: ReceivedRequest, index: number) => Answer): void;
  close(): Promise<void>;
}

/** A real HTTP webhook receiver on 127.0.0.1 that records every request; close() drops held connections too. */
export async function startReceiver(
  initial: (request: ReceivedRequest, index: number) => Answer = () => ({ status: 200 }),
): Promise<Receiver> {
  let respond = initial;
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: ReceivedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        status: null,
      };
      const index = requests.push(received) - 1;
      const answer = respond(received, index);
      if (answer === 'hang') return;
      received.status = answer.status;
      response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      response.end(answer.body ?? '');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/clarion`,
    port,
    requests,
    answer(next) {
      respond = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Registers a webhook through the API; returns its data (with `secret`). */
export async function createWebhook(t: TestApp, key: string, body: Record<string, unknown>): Promise<any> {
  const response = await post(t.app, '/api/v1/webhooks', key, body);
  if (response.statusCode !== 201)
    throw new Error(`create webhook failed: ${response.statusCode} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** Verifies a received request with the official `standardwebhooks` library; returns the parsed payload or throws. */
export function verifyWithStandardWebhooks(secret: string, request: ReceivedRequest): any {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });
}

/**
 * A webhook endpoint and one message in it, written straight to the store (no DNS, no HTTP): for tests that need
 * real ids on the /webhooks/{id} and /webhook-messages/{id} routes.
 */
export async function insertWebhookFixture(
  t: TestApp,
  accountId: string,
  url = 'https://hooks.example.com/clarion',
): Promise<{ webhook: string; webhookMessage: string }> {
  const now = t.clock.now();
  const webhook = newId('webhook', now);
  await insertWebhook(t.store.db, {
    id: webhook,
    accountId,
    url,
    description: null,
    eventTypes: ['*'],
    sealedSecret: sealSecret(t.secretKey, generateWebhookSecret(), webhook),
    now,
  });
  const webhookMessage = newId('webhookMessage', now);
  await insertWebhookMessages(t.store.db, [
    {
      id: webhookMessage,
      account_id: accountId,
      endpoint_id: webhook,
      event_id: null,
      event_type: 'webhook.test',
      payload: webhookBody('webhook.test', now, { webhookId: webhook }),
      status: 'failed',
      attempt_count: 0,
      next_attempt_at: null,
      delivered_at: null,
      created_at: now,
      updated_at: now,
    },
  ]);
  return { webhook, webhookMessage };
}

/** Rows of the webhook tables that belong to an account: compare before and after a refused request. */
export async function webhookState(
  t: TestApp,
  accountId: string,
): Promise<{ endpoints: number; messages: number; jobs: number }> {
  const count = async (table: 'webhook_endpoints' | 'webhook_messages') =>
    Number(
      (
        await t.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const messageIds = (
    await t.store.db.selectFrom('webhook_messages').select('id').where('account_id', '=', accountId).execute()
  ).map((row) => row.id);
  let jobs = 0;
  for (const id of messageIds) {
    jobs += Number(
      (
        await t.store.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('payload', 'like', `%${id}%`)
          .executeTakeFirstOrThrow()
      ).n,
    );
  }
  return { endpoints: await count('webhook_endpoints'), messages: await count('webhook_messages'), jobs };
}

/** DELETE through inject(), body parsed. */
export async function del(t: TestApp, url: string, key: string | null) {
  const response = await t.app.inject({
    method: 'DELETE',
    url,
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  let body: any = response.body;
  try {
    body = JSON.parse(response.body);
  } catch {
    // not JSON
  }
  return Object.assign(response, { body });
}

/** A public IP-literal URL: passes the SSRF guard without DNS; no test sends anything to it. */
export const PUBLIC_URL = 'https://93.184.215.14/hooks/clarion';
