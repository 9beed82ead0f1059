import { buildApp } from '../../src/http/app.ts';
import type { ClarionApp } from '../../src/http/app-types.ts';
import { faultyStore, type FaultyStore } from '../delivery/engine/store-faults.ts';
import { startTestApp, type TestApp } from './test-app.ts';

export interface FaultyApp {
  /** The test app on the real store (accounts, keys and reads that must not fail). */
  t: TestApp;
  faulty: FaultyStore;
  /** The API on the faulty view of the same store: the statements `faulty.failNext` picks fail as the driver would. */
  app: ClarionApp;
  close(): Promise<void>;
}

export async function startFaultyApp(): Promise<FaultyApp> {
  const t = await startTestApp();
  const faulty = faultyStore(t.store);
  const app = await buildApp({
    store: faulty.store,
    config: t.config,
    clock: t.clock,
    queue: t.queue,
    secretKey: t.secretKey,
  });
  return {
    t,
    faulty,
    app,
    async close() {
      await app.close();
      await t.close();
    },
  };
}
