import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome } from '../../src/delivery/delivery-outcome.ts';
import type { PushProviders, PushSender, SenderCapabilities } from '../../src/delivery/push-sender.ts';
import { ClarionMetrics } from '../../src/metrics/clarion-metrics.ts';
import { instrumentProviders } from '../../src/delivery/push-metrics.ts';
import { MAX_REASON_LABELS } from '../../src/delivery/push-reason-label.ts';

const content = { title: 'Hi' } as never;

/** A sender that answers whatever `answer` returns for the token (or throws when it returns an Error). */
function scripted(
  answer: (token: string) => DeliveryOutcome | Error,
  stats?: SenderCapabilities['stats'],
): PushSender & SenderCapabilities {
  const reply = (token: string) => {
    const outcome = answer(token);
    return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(outcome);
  };
  return {
    send: (token) => reply(token),
    sendLiveActivity: (token) => reply(token),
    ...(stats ? { stats } : {}),
    close: async () => {},
  };
}

async function samples(metrics: ClarionMetrics) {
  return (await metrics.pushes.get()).values.map((value) => ({ ...value.labels, value: value.value }));
}

describe('instrumentProviders', () => {
  it('counts every push by platform, outcome and reason, and times it, for notifications and Live Activities', async () => {
    const metrics = new ClarionMetrics();
    const providers: PushProviders = {
      ios: scripted((token) =>
        token === 'dead'
          ? { kind: 'token_dead', reason: 'token_unregistered', providerReason: 'Unregistered' }
          : { kind: 'delivered' },
      ),
      android: scripted(() => new Error('socket hang up')),
      web: scripted(() => ({ kind: 'rejected', reason: 'web-push:PayloadTooLarge' })),
    };
    const wrapped = instrumentProviders(providers, metrics);
    await wrapped.ios.send('a', content, { channelCode: 'news' });
    await wrapped.ios.send('dead', content, { channelCode: 'news' });
    await wrapped.ios.sendLiveActivity!('b', {} as never, {} as never);
    await expect(wrapped.android.send('c', content, { channelCode: 'news' })).rejects.toThrow('socket hang up');
    expect(await wrapped.web.send('d', content, { channelCode: 'news' })).toEqual({
      kind: 'rejected',
      reason: 'web-push:PayloadTooLarge',
    });

    expect(await samples(metrics)).toEqual(
      expect.arrayContaining([
        { platform: 'ios', outcome: 'delivered', reason: '', value: 2 },
        { platform: 'ios', outcome: 'token_dead', reason: 'token_unregistered', value: 1 },
        { platform: 'android', outcome: 'retry', reason: 'network', value: 1 },
        { platform: 'web', outcome: 'rejected', reason: 'web-push:PayloadTooLarge', value: 1 },
      ]),
    );
    const latency = (await metrics.providerDuration.get()).values.filter(
      (value) => value.metricName === 'clarion_provider_request_duration_seconds_count',
    );
    expect(latency.map((value) => [value.labels.platform, value.value]).sort()).toEqual([
      ['android', 1],
      ['ios', 3],
      ['web', 1],
    ]);
  });

  it('counts and times a sender that throws instead of rejecting, as a rejection (the APNs sender is not async)', async () => {
    const metrics = new ClarionMetrics();
    const throwing: PushSender = {
      send: () => {
        throw new Error('no client');
      },
      sendLiveActivity: () => {
        throw new Error('no client');
      },
      close: async () => {},
    };
    const wrapped = instrumentProviders({ ios: throwing, android: throwing, web: throwing }, metrics);
    await expect(wrapped.ios.send('a', content, { channelCode: 'news' })).rejects.toThrow('no client');
    expect(await samples(metrics)).toEqual([{ platform: 'ios', outcome: 'retry', reason: 'network', value: 1 }]);
    const latency = (await metrics.providerDuration.get()).values.filter(
      (value) => value.metricName === 'clarion_provider_request_duration_seconds_count',
    );
    expect(latency.map((value) => [value.labels.platform, value.value])).toEqual([['ios', 1]]);
  });

  it('keeps the reason labels to a bounded set however many distinct reasons the providers invent', async () => {
    const metrics = new ClarionMetrics();
    let n = 0;
    const inventive = scripted(() => ({ kind: 'rejected', reason: `apns:Reason${(n += 1)}` }));
    const wrapped = instrumentProviders({ ios: inventive, android: inventive, web: inventive }, metrics);
    for (let i = 0; i < MAX_REASON_LABELS * 5; i += 1) await wrapped.ios.send('t', content, { channelCode: 'news' });
    const series = await samples(metrics);
    expect(series.length).toBeLessThanOrEqual(MAX_REASON_LABELS * 3 + 1);
    expect(series.reduce((sum, sample) => sum + sample.value, 0)).toBe(MAX_REASON_LABELS * 5);
    expect(series).toContainEqual(expect.objectContaining({ reason: 'other' }));
  });

  it("reads the HTTP/2 pools' counters when scraped", async () => {
    const metrics = new ClarionMetrics();
    const pooled = scripted(
      () => ({ kind: 'delivered' }),
      () => ({ sessions: 2, activeStreams: 37, queued: 5 }),
    );
    instrumentProviders(
      { ios: pooled, android: scripted(() => ({ kind: 'delivered' })), web: scripted(() => ({ kind: 'delivered' })) },
      metrics,
    );
    const text = await metrics.render();
    expect(text).toContain('clarion_http2_sessions{platform="ios"} 2');
    expect(text).toContain('clarion_http2_active_streams{platform="ios"} 37');
    expect(text).toContain('clarion_http2_queued_requests{platform="ios"} 5');
    expect(text).not.toContain('clarion_http2_sessions{platform="android"}');
  });
});
