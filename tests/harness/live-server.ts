import { startFakeProviders, type FakeProviders } from '../delivery/engine/delivery-harness.ts';
import { startServeProcess, type ServerProcess } from './cli-process.ts';
import { startTestApp, type TestAccount, type TestApp } from './test-app.ts';

export interface LiveServer {
  /** Where the `clarion serve` process answers, e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  server: ServerProcess;
  /** Fake APNs and FCM that the server's delivery worker sends to. */
  fakes: FakeProviders;
  /** A fresh account with the given channels and an Android subscriber registered (through the API) in each. */
  newAccount(channels: string[]): Promise<TestAccount & { androidTokens: Record<string, string> }>;
  close(): Promise<void>;
}

let tokenSequence = 0;

/**
 * A real `clarion serve` (API and delivery worker, on the real clock) with the fake providers, on a database of its
 * own (on PostgreSQL too, so its worker claims no other file's jobs), for tests that talk HTTP to Clarion as a
 * caller would: the client package's README examples and the CLI's sends. Accounts and keys are written straight into
 * the same database by the test process.
 */
export async function startLiveServer(): Promise<LiveServer> {
  const t: TestApp = await startTestApp({}, { isolatedDatabase: true });
  const fakes = await startFakeProviders();
  const server = await startServeProcess({
    ...fakes.providerEnv,
    CLARION_DATA_DIR: t.config.dataDir,
    CLARION_DATABASE_URL: t.databaseUrl,
    CLARION_QUEUE_POLL_INTERVAL: '100ms',
    CLARION_LOG_LEVEL: 'info',
  });
  return {
    baseUrl: server.baseUrl,
    server,
    fakes,
    async newAccount(channels) {
      const account = await t.newAccount({ channels });
      const androidTokens: Record<string, string> = {};
      for (const channelCode of channels) {
        const token = `live-server-token-${process.pid}-${++tokenSequence}`;
        const response = await fetch(`${server.baseUrl}/api/v1/subscribers`, {
          method: 'POST',
          headers: { authorization: `Bearer ${account.publishableKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ channelCode, platform: 'android', token }),
        });
        if (response.status !== 201)
          throw new Error(`registering a subscriber answered ${response.status}: ${await response.text()}`);
        androidTokens[channelCode] = token;
      }
      return { ...account, androidTokens };
    },
    async close() {
      await server.stop();
      await fakes.close();
      await t.close();
    },
  };
}
