import { performance } from 'node:perf_hooks';
import type { Counter } from 'prom-client';
import type { DeliveryOutcome } from '../delivery/delivery-outcome.ts';
import type { PushProviders, PushSender } from '../delivery/push-sender.ts';
import type { Platform } from '../domain/device-token.ts';
import type { ClarionMetrics } from './clarion-metrics.ts';
import { MAX_REASON_LABELS, pushReasonLabel } from './push-reason-label.ts';

type PushCounterChild = ReturnType<Counter<'platform' | 'outcome' | 'reason'>['labels']>;

/**
 * The provider clients with every push counted (`clarion_pushes_total`) and timed
 * (`clarion_provider_request_duration_seconds`), for both send jobs (notifications and Live Activities) at once.
 * Per push this costs two clock reads, a histogram observation and a counter increment on a child looked up once per
 * (platform, outcome, reason): measured at about 1 µs (docs/ops.md, "Cost"), against the tens of µs a push costs.
 * A thrown error is what batch-send.ts turns into `retry` with a `network:` reason, and is counted the same way.
 * The HTTP/2 pools' counters are read at scrape time from the clients' `stats()`.
 */
export function instrumentProviders(providers: PushProviders, metrics: ClarionMetrics): PushProviders {
  const children = new Map<string, PushCounterChild>();
  const count = (platform: Platform, outcome: DeliveryOutcome) => {
    let reason = pushReasonLabel(outcome);
    let key = `${platform}|${outcome.kind}|${reason}`;
    let child = children.get(key);
    if (!child) {
      if (children.size >= MAX_REASON_LABELS * 3) {
        reason = 'other';
        key = `${platform}|${outcome.kind}|other`;
        child = children.get(key);
      }
      if (!child) {
        child = metrics.pushes.labels({ platform, outcome: outcome.kind, reason });
        children.set(key, child);
      }
    }
    child.inc();
  };

  const wrap = (platform: Platform, sender: PushSender): PushSender => {
    const latency = metrics.providerDuration.labels({ platform });
    const timed = (push: () => Promise<DeliveryOutcome>): Promise<DeliveryOutcome> => {
      const started = performance.now();
      return push().then(
        (outcome) => {
          latency.observe((performance.now() - started) / 1000);
          count(platform, outcome);
          return outcome;
        },
        (error: unknown) => {
          latency.observe((performance.now() - started) / 1000);
          count(platform, { kind: 'retry', reason: 'network', retryAfterMs: null });
          throw error;
        },
      );
    };
    const sendLiveActivity = sender.sendLiveActivity;
    return {
      send: (token, content, context) => timed(() => sender.send(token, content, context)),
      ...(sendLiveActivity ? { sendLiveActivity: (token, push, reader) => timed(() => sendLiveActivity.call(sender, token, push, reader)) } : {}),
      ...(sender.stats ? { stats: sender.stats.bind(sender) } : {}),
      close: () => sender.close(),
    };
  };

  const wrapped = { ios: wrap('ios', providers.ios), android: wrap('android', providers.android), web: wrap('web', providers.web) };
  metrics.onScrape(() => {
    for (const [platform, sender] of Object.entries(providers) as [Platform, PushSender][]) {
      const stats = sender.stats?.();
      if (!stats) continue;
      metrics.http2Sessions.set({ platform }, stats.sessions);
      metrics.http2Streams.set({ platform }, stats.activeStreams);
      metrics.http2Queued.set({ platform }, stats.queued);
    }
  });
  return wrapped;
}
