import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClarionMetrics } from '../../src/metrics/clarion-metrics.ts';
import { subscribe } from '../harness/sample-requests.ts';
import type { TestApp } from '../harness/test-app.ts';
import { eventually } from '../harness/wait-for.ts';
import {
  createWebhook,
  startReceiver,
  startWebhookApp,
  startWebhookWorker,
  type Receiver,
  type TestWorker,
} from './webhook-harness.ts';

let t: TestApp;
let worker: TestWorker;
let metrics: ClarionMetrics;
const receivers: Receiver[] = [];
beforeAll(async () => {
  t = await startWebhookApp();
  metrics = new ClarionMetrics();
  worker = await startWebhookWorker(t, {}, metrics);
});
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

async function deliveries(outcome: string): Promise<number> {
  return (await metrics.webhookDeliveries.get()).values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
}

describe('webhook delivery metrics', () => {
  it('counts attempts by outcome once settled: delivered, and retry for a failing receiver', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const good = await startReceiver();
    receivers.push(good);
    await createWebhook(t, account.secretKey, { url: good.url });
    await subscribe(t.app, account.publishableKey, 'news', 'ios');
    await eventually(async () => expect(await deliveries('delivered')).toBe(1));

    const other = await t.newAccount({ channels: ['news'] });
    const failing = await startReceiver(() => ({ status: 500 }));
    receivers.push(failing);
    await createWebhook(t, other.secretKey, { url: failing.url });
    await subscribe(t.app, other.publishableKey, 'news', 'ios');
    await eventually(async () => expect(await deliveries('retry')).toBe(1));
    expect(await deliveries('delivered')).toBe(1);
    // The worker counts a finished job after its attempt's outcome: wait for it too.
    await eventually(async () => {
      const finished = (await metrics.jobsFinished.get()).values.filter(
        (value) => value.labels.kind === 'webhook.deliver',
      );
      expect(finished.reduce((sum, value) => sum + value.value, 0)).toBeGreaterThanOrEqual(2);
    });
  });
});
