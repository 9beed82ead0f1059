import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/load-config.ts';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { createApiKey } from '../../src/store/api-keys-queries.ts';
import { createChannel } from '../../src/store/channels-queries.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';
import { eventually } from '../harness/wait-for.ts';

let testStore: TestStore;
beforeAll(async () => {
  // A database of its own: the servers here run workers, which must not claim other files' jobs.
  testStore = await openTestStore({ isolated: true });
});
afterAll(async () => testStore.close());

function configFor(overrides: Partial<Config>): Config {
  return {
    ...loadConfig({
      CLARION_DATA_DIR: testStore.dataDir,
      ...(testStore.databaseUrl ? { CLARION_DATABASE_URL: testStore.databaseUrl } : {}),
    }),
    host: '127.0.0.1',
    port: 0,
    metricsPort: 0,
    logLevel: 'silent',
    ...overrides,
  };
}

async function scrape(
  server: RunningServer,
  path = '/metrics',
): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`http://${server.metricsAddress}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** Sends one notification through the server's API to a channel without subscribers (its dispatch completes at once). */
async function sendThroughApi(server: RunningServer): Promise<void> {
  const now = Date.now();
  const account = await createAccount(testStore.store.db, { name: 'Metrics', plan: 'business', now });
  await createChannel(testStore.store.db, {
    accountId: account.id,
    code: 'news',
    name: 'news',
    description: null,
    now,
  });
  const key = await createApiKey(testStore.store.db, {
    accountId: account.id,
    name: 'k',
    kind: 'secret',
    channels: null,
    now,
  });
  const response = await fetch(`${server.address}/api/v1/notifications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.value}`, 'content-type': 'application/json' },
    body: JSON.stringify({ channelCode: 'news', title: 'Hello' }),
  });
  expect(response.status).toBe(201);
}

describe('the CLARION_METRICS_PORT listener', () => {
  it('serves every clarion_ metric, process metrics included, without a token, on 127.0.0.1 only; nothing else', async () => {
    const server = await startServer(configFor({}), { api: true, worker: true });
    try {
      expect(server.metricsAddress).toMatch(/^127\.0\.0\.1:\d+$/);
      const { status, type, text } = await scrape(server);
      expect(status).toBe(200);
      expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
      const names = [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!);
      expect(names).toEqual(
        expect.arrayContaining([
          'clarion_process_cpu_user_seconds_total',
          'clarion_nodejs_eventloop_lag_seconds',
          'clarion_queue_jobs',
          'clarion_http_request_duration_seconds',
        ]),
      );
      expect(names.filter((name) => !name.startsWith('clarion_'))).toEqual([]);
      expect((await scrape(server, '/')).status).toBe(404);
      expect((await scrape(server, '/api/v1/usage')).status).toBe(404);
      // The main port has no /metrics without CLARION_METRICS_TOKEN.
      expect((await fetch(`${server.address}/metrics`)).status).toBe(404);

      await sendThroughApi(server);
      await eventually(async () => {
        const after = (await scrape(server)).text;
        expect(after).toMatch(/^clarion_notifications_accepted_total\{timing="now"\} 1$/m);
        expect(after).toMatch(
          /^clarion_jobs_finished_total\{kind="notification\.dispatch",result="completed"\} [1-9]/m,
        );
      });
    } finally {
      await server.close();
    }
  });

  it('serves a worker-only process (no HTTP API) too', async () => {
    const server = await startServer(configFor({}), { api: false, worker: true });
    try {
      expect(server.address).toBeNull();
      const { status, text } = await scrape(server);
      expect(status).toBe(200);
      expect(text).toContain('# TYPE clarion_jobs_finished_total counter');
      expect(text).toContain('# TYPE clarion_process_resident_memory_bytes gauge');
    } finally {
      await server.close();
    }
  });

  it("with CLARION_WORKER_THREAD, adds the worker thread's counters to the main thread's, once", async () => {
    const server = await startServer(configFor({ workerThread: true }), { api: true, worker: true });
    try {
      await sendThroughApi(server);
      await eventually(async () => {
        const text = (await scrape(server)).text;
        expect(text).toMatch(/^clarion_jobs_finished_total\{kind="notification\.dispatch",result="completed"\} 1$/m);
        expect(text).toMatch(/^clarion_notifications_accepted_total\{timing="now"\} 1$/m);
        expect(text.match(/^# TYPE clarion_process_cpu_user_seconds_total /gm)).toHaveLength(1);
      });
    } finally {
      await server.close();
    }
  });

  it('names CLARION_METRICS_PORT when the port is taken', async () => {
    const first = await startServer(configFor({}), { api: false, worker: true });
    try {
      const port = Number(first.metricsAddress!.split(':')[1]);
      await expect(startServer(configFor({ metricsPort: port }), { api: false, worker: true })).rejects.toThrow(
        /CLARION_METRICS_PORT: port \d+ is already in use/,
      );
    } finally {
      await first.close();
    }
  });
});

describe('the default metrics listener (CLARION_METRICS_PORT unset)', () => {
  const holdPort = async (port: number) => {
    const { createServer } = await import('node:net');
    const holder = createServer();
    const held = await new Promise<boolean>((resolve) => {
      holder.once('error', () => resolve(false));
      holder.listen(port, '127.0.0.1', () => resolve(true));
    });
    return {
      held,
      release: () => (held ? new Promise<void>((resolve) => holder.close(() => resolve())) : Promise.resolve()),
    };
  };

  it('when 9464 is taken, the process starts without a metrics listener instead of failing', async () => {
    // Held here, or already by another process on the machine: either way the port is taken.
    const hold = await holdPort(9464);
    try {
      const server = await startServer(configFor({ metricsPort: undefined }), { api: false, worker: true });
      try {
        expect(server.metricsAddress).toBeNull();
      } finally {
        await server.close();
      }
    } finally {
      await hold.release();
    }
  });

  it('when 9464 is free, serves the metrics there', async (context) => {
    const probe = await holdPort(9464);
    await probe.release();
    // Another process on the machine holds it (a clarion of another test file): the case above covers that.
    if (!probe.held) context.skip();
    const server = await startServer(configFor({ metricsPort: undefined }), { api: false, worker: true });
    try {
      if (server.metricsAddress === null) {
        // Taken between the probe and the start by a `clarion serve` of a test file running beside this one: then it is
        // still taken now. Free now means this process failed to take a free port, which is the failure to catch.
        const again = await holdPort(9464);
        await again.release();
        expect(again.held, 'no metrics listener, though 9464 is free').toBe(false);
        context.skip();
      }
      expect(server.metricsAddress).toBe('127.0.0.1:9464');
      expect((await scrape(server)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
