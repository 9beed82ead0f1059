import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { SEVERAL_PROCESSES, startFakeProviders, type FakeProviders } from '../delivery/engine/delivery-harness.ts';
import { runCli, startServeProcess, type ServerProcess } from '../harness/cli-process.ts';
import { createIsolatedDatabase } from '../harness/isolated-database.ts';
import { eventually } from '../harness/wait-for.ts';

/**
 * compose.yaml's topology as processes: PostgreSQL, `clarion migrate` once, two
 * `clarion serve --api` replicas behind a round-robin proxy that sets X-Forwarded-For (as Caddy does), and one
 * `clarion serve --worker`, all with one CLARION_SECRET_KEY. Subscribers registered through one replica are sent to
 * through the other, and the worker delivers to the fake providers. PostgreSQL only: it is the layout's database.
 */
const postgresUrl = inject('postgresUrl');

/** A minimal round-robin HTTP proxy in front of the replicas, counting the requests each one got. */
async function startRoundRobinProxy(
  upstreams: string[],
): Promise<{ url: string; served: number[]; close(): Promise<void> }> {
  const served = upstreams.map(() => 0);
  let next = 0;
  const server: Server = createServer((incoming, outgoing) => {
    const index = next++ % upstreams.length;
    served[index]! += 1;
    const target = new URL(incoming.url!, upstreams[index]);
    const forwarded = httpRequest(
      target,
      {
        method: incoming.method,
        headers: {
          ...incoming.headers,
          'x-forwarded-for': incoming.socket.remoteAddress!,
          'x-forwarded-proto': 'https',
        },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

describe.runIf(postgresUrl)('two API replicas and a worker on PostgreSQL (compose.yaml as processes)', () => {
  let database: { url: string; drop(): Promise<void> };
  let fakes: FakeProviders;
  let proxy: Awaited<ReturnType<typeof startRoundRobinProxy>>;
  const processes: ServerProcess[] = [];
  const dataDirs: string[] = [];
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    database = await createIsolatedDatabase();
    fakes = await startFakeProviders(SEVERAL_PROCESSES);
    env = {
      ...fakes.providerEnv,
      CLARION_DATABASE_URL: database.url,
      CLARION_SECRET_KEY: randomBytes(32).toString('hex'),
      CLARION_TRUST_PROXY: 'loopback',
      CLARION_QUEUE_POLL_INTERVAL: '100ms',
      CLARION_LOG_LEVEL: 'info',
    };
    // Each process has a data directory of its own, as each container does: nothing is shared but the database.
    const ownDataDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'clarion-replica-'));
      dataDirs.push(dir);
      return dir;
    };
    const migrate = runCli(['migrate', '--json'], { ...env, CLARION_DATA_DIR: ownDataDir() });
    expect(migrate.status, migrate.stderr).toBe(0);
    for (let replica = 0; replica < 2; replica += 1)
      processes.push(await startServeProcess({ ...env, CLARION_DATA_DIR: ownDataDir() }, ['--api']));
    processes.push(
      await startServeProcess({ ...env, CLARION_DATA_DIR: ownDataDir() }, ['--worker'], /delivery worker started()/),
    );
    proxy = await startRoundRobinProxy(processes.slice(0, 2).map((api) => api.baseUrl));
  }, 120_000);

  afterAll(async () => {
    for (const child of processes) await child.stop();
    await proxy?.close();
    await fakes?.close();
    await database?.drop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, key: string, body?: unknown) {
    const response = await fetch(`${proxy.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  it('migrated once: the replicas found nothing left to apply', () => {
    for (const api of processes.slice(0, 2)) expect(api.output()).toMatch(/"applied":\[\]/);
  });

  it('accepts through either replica and delivers through the worker', async () => {
    const cliEnv = { ...env, CLARION_DATA_DIR: dataDirs[0] };
    const account = runCli(['accounts', 'create', '--name', 'Replicas', '--json'], cliEnv);
    runCli(['channels', 'create', '--account', account.json.id, '--code', 'news', '--json'], cliEnv);
    const secret = runCli(['keys', 'create', '--account', account.json.id, '--name', 'backend', '--json'], cliEnv).json
      .key as string;
    const publishable = runCli(
      ['keys', 'create', '--account', account.json.id, '--name', 'app', '--publishable', '--json'],
      cliEnv,
    ).json.key as string;

    const tokens = [
      { platform: 'ios', token: randomBytes(32).toString('hex') },
      { platform: 'ios', token: randomBytes(32).toString('hex') },
      { platform: 'android', token: `replica-${randomBytes(8).toString('hex')}` },
      { platform: 'android', token: `replica-${randomBytes(8).toString('hex')}` },
    ];
    for (const { platform, token } of tokens)
      expect(
        (await call('POST', '/api/v1/subscribers', publishable, { channelCode: 'news', platform, token })).status,
      ).toBe(201);
    const sent = await call('POST', '/api/v1/notifications', secret, {
      channelCode: 'news',
      title: 'Through the proxy',
      body: 'Two replicas, one worker',
    });
    expect(sent.status).toBe(201);
    expect(sent.body.data.recipientCount).toBe(4);

    await fakes.apns.waitForRequests(2, 30_000);
    await fakes.fcm.waitForRequests(2, 30_000);
    await eventually(async () => {
      const notification = await call('GET', `/api/v1/notifications/${sent.body.data.id}`, secret);
      expect(notification.body.data).toMatchObject({ status: 'sent', stats: { delivered: 4 } });
    }, 30_000);
    // Round robin: both replicas answered requests of this test.
    expect(proxy.served.every((count) => count >= 2)).toBe(true);
  }, 90_000);
});
