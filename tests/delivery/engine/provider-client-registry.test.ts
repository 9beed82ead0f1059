import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createProviderClientRegistry,
  type ProviderClientRegistry,
} from '../../../src/delivery/provider-client-registry.ts';
import { unconfiguredSender } from '../../../src/delivery/push-sender.ts';
import { ManualClock } from '../../../src/domain/clock.ts';
import { findApp, type App } from '../../../src/store/apps-queries.ts';
import { createTestApp } from '../../api/apps/app-fixtures.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

/** The per-app client registry: one client per (app, platform, environment), LRU-bounded, closed when idle. */
let t: TestApp;
let registry: ProviderClientRegistry;
const apps: App[] = [];
const builtIn = {
  ios: unconfiguredSender('x', 'x'),
  android: unconfiguredSender('x', 'x'),
  web: unconfiguredSender('x', 'x'),
};

beforeAll(async () => {
  t = await startTestApp();
  const account = await t.newAccount();
  for (let n = 0; n < 3; n += 1)
    apps.push((await findApp(t.store.db, account.id, (await createTestApp(t, account.secretKey, `App ${n}`)).id))!);
  registry = createProviderClientRegistry({
    store: t.store,
    config: t.config,
    clock: t.clock,
    logger: pino({ level: 'silent' }),
    secretKey: t.secretKey,
    builtIn,
    maxClients: 2,
    idleMs: 60_000,
  });
});
afterAll(async () => {
  await registry?.close();
  await t?.close();
});

describe('provider client registry', () => {
  it('keeps one client per app and environment, closes the least recently used past the bound, and idle ones', async () => {
    const [a, b, c] = apps as [App, App, App];
    const first = registry.apnsClient(a, 'production');
    expect(registry.apnsClient(a, 'production')).toBe(first);
    expect(registry.apnsClient(a, 'sandbox')).not.toBe(first);
    expect(registry.size()).toBe(2);
    registry.apnsClient(b, 'production');
    expect(registry.size()).toBe(2);
    // a/production was the least recently used: closed, so a new one is made.
    expect(registry.apnsClient(a, 'production')).not.toBe(first);
    // New credentials (a later updated_at) are a new client.
    const renewed = { ...c, updated_at: c.updated_at + 1 };
    expect(registry.apnsClient(renewed, 'production')).not.toBe(registry.apnsClient(c, 'production'));

    t.clock.advance(60_001);
    await registry.closeIdle();
    expect(registry.size()).toBe(0);
  });

  it("gives an app's iOS sender a broadcast connection for its bundle id that opens nothing until used", async () => {
    await registry.closeIdle();
    const [a] = apps as [App];
    const connection = (await registry.providersFor(a.id)).ios.liveActivityBroadcast;
    expect(connection).toMatchObject({ topic: a.apns_topic, environment: 'production' });
    expect(registry.size()).toBe(0);
  });

  it('gives the built-in providers to a channel without an app', async () => {
    expect(await registry.providersFor(null)).toBe(builtIn);
  });

  it('sweeps idle clients on its clock: moving a manual clock past idleMs closes them, with no call from outside', async () => {
    const clock = new ManualClock(t.clock.now(), { manualTasks: true });
    const swept = createProviderClientRegistry({
      store: t.store,
      config: t.config,
      clock,
      logger: pino({ level: 'silent' }),
      secretKey: t.secretKey,
      builtIn,
      idleMs: 60_000,
    });
    try {
      swept.apnsClient(apps[0]!, 'production');
      expect(swept.size()).toBe(1);
      clock.advance(60_001);
      expect(swept.size()).toBe(0);
    } finally {
      await swept.close();
    }
  });
});
