import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClarionMetrics } from '../../../src/metrics/clarion-metrics.ts';
import { post } from '../../harness/requests.ts';
import { eventually } from '../../harness/wait-for.ts';
import {
  androidToken,
  finalNotification,
  iosToken,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

let h: DeliveryHarness;
let metrics: ClarionMetrics;
beforeAll(async () => {
  metrics = new ClarionMetrics();
  h = await startDeliveryHarness({ metrics });
});
afterAll(async () => h?.close());

describe('delivery metrics against the fake providers', () => {
  it('counts and times every push by platform and outcome, reads the HTTP/2 pools, and counts the jobs', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    await registerSubscriber(h, account.publishableKey, 'orders', 'ios', iosToken(7));
    await registerSubscriber(h, account.publishableKey, 'orders', 'android', androidToken(7));
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'orders',
      title: 'Shipped',
    });
    expect(sent.statusCode).toBe(201);
    expect(await finalNotification(h, account.secretKey, sent.body.data.id)).toMatchObject({
      status: 'sent',
      stats: { delivered: 2 },
    });

    await eventually(async () => {
      const text = await metrics.render();
      expect(text).toContain('clarion_pushes_total{platform="ios",outcome="delivered",reason=""} 1');
      expect(text).toContain('clarion_pushes_total{platform="android",outcome="delivered",reason=""} 1');
      expect(text).toContain('clarion_provider_request_duration_seconds_count{platform="ios"} 1');
      expect(text).toContain('clarion_provider_request_duration_seconds_count{platform="android"} 1');
      expect(text).toMatch(/^clarion_http2_sessions\{platform="ios"\} 1$/m);
      expect(text).toMatch(/^clarion_http2_sessions\{platform="android"\} 1$/m);
      expect(text).toContain('clarion_jobs_finished_total{kind="notification.dispatch",result="completed"} 1');
      expect(text).toContain('clarion_jobs_finished_total{kind="notification.send",result="completed"} 2');
    });
  });
});
