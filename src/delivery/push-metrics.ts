import { performance } from 'node:perf_hooks';
import type { Counter } from 'prom-client';
import type { DeliveryOutcome } from './delivery-outcome.ts';
import type { PushProviders } from './push-sender.ts';
import type { Platform } from '../domain/device-token.ts';
import type { ClarionMetrics } from '../metrics/clarion-metrics.ts';
import { MAX_REASON_LABELS, pushReasonLabel } from './push-reason-label.ts';

type PushCounterChild = ReturnType<Counter<'platform' | 'outcome' | 'reason'>['labels']>;

/** Distinct series (platform, outcome, reason label) one process keeps at most; later new ones count as reason `other`. */
const MAX_SERIES = MAX_REASON_LABELS * 3;
/** Distinct raw reasons remembered for the fast path; past it, a push takes the slower lookup through its label. */
const MAX_RAW_REASONS = 1_024;

interface Tally {
  child: PushCounterChild;
  pending: number;
}

/**
 * The provider clients with every push counted (`clarion_pushes_total`) and timed
 * (`clarion_provider_request_duration_seconds`), for both send jobs (notifications and Live Activities) at once.
 * A thrown error is what send-batch.ts turns into `retry` with a `network:` reason, and is counted the same way.
 *
 * Per push: two clock reads, one histogram observation on a child looked up once per platform, and a tally: a
 * delivered push's is kept per platform, any other's in a plain Map (keyed by platform, outcome and the provider's
 * reason as given), added to the counter when Prometheus scrapes, rather than a prom-client increment per push (which
 * hashes its labels every time). Measured with a loop (docs/ops.md, "What metrics cost"). The HTTP/2 pools' counters
 * are read at scrape time from the clients' `stats()`.
 */
export function instrumentProviders(
  providers: PushProviders,
  metrics: ClarionMetrics,
  instrument = pushInstrumentation(metrics),
): PushProviders {
  const wrapped = instrument(providers);
  metrics.onScrape(() => {
    for (const [platform, sender] of Object.entries(providers) as [Platform, PushProviders[Platform]][]) {
      const stats = sender.stats?.();
      if (!stats) continue;
      metrics.http2Sessions.set({ platform }, stats.sessions);
      metrics.http2Streams.set({ platform }, stats.activeStreams);
      metrics.http2Queued.set({ platform }, stats.queued);
    }
  });
  return wrapped;
}

/**
 * The counting and timing of `instrumentProviders` without the HTTP/2 gauges, as a function that wraps any number of
 * provider sets into the same tallies: the per-app senders of src/delivery/provider-client-registry.ts are wrapped
 * each time a batch asks for them, and must not add a scrape hook each time.
 */
export function pushInstrumentation(metrics: ClarionMetrics): (providers: PushProviders) => PushProviders {
  const byLabels = new Map<string, Tally>();
  const byRawReason = new Map<string, Tally>();
  const tallyOf = (platform: Platform, outcome: DeliveryOutcome): Tally => {
    let reason = pushReasonLabel(outcome);
    if (!byLabels.has(`${platform}|${outcome.kind}|${reason}`) && byLabels.size >= MAX_SERIES) reason = 'other';
    const key = `${platform}|${outcome.kind}|${reason}`;
    let tally = byLabels.get(key);
    if (!tally) {
      tally = { child: metrics.pushes.labels({ platform, outcome: outcome.kind, reason }), pending: 0 };
      byLabels.set(key, tally);
    }
    return tally;
  };
  /** The tally of each platform's delivered pushes (nearly all of them), found without building a key per push. */
  const deliveredTallies = new Map<Platform, Tally>();
  const count = (platform: Platform, outcome: DeliveryOutcome) => {
    if (outcome.kind === 'delivered') {
      let delivered = deliveredTallies.get(platform);
      if (!delivered) deliveredTallies.set(platform, (delivered = tallyOf(platform, outcome)));
      delivered.pending += 1;
      return;
    }
    const raw = `${platform}|${outcome.kind}|${outcome.reason}`;
    let tally = byRawReason.get(raw);
    if (!tally) {
      tally = tallyOf(platform, outcome);
      if (byRawReason.size < MAX_RAW_REASONS) byRawReason.set(raw, tally);
    }
    tally.pending += 1;
  };
  metrics.onScrape(() => {
    for (const tally of byLabels.values()) {
      if (tally.pending === 0) continue;
      tally.child.inc(tally.pending);
      tally.pending = 0;
    }
  });

  const wrap = (platform: Platform, sender: PushProviders[Platform]): PushProviders[Platform] => {
    const latency = metrics.providerDuration.labels({ platform });
    // The push's promise is passed in, not a function that makes it: no closure per push for that.
    const timed = (started: number, push: Promise<DeliveryOutcome>): Promise<DeliveryOutcome> => {
      return push.then(
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
    return {
      send: (token, content, context, receipt) => {
        const started = performance.now();
        let push: Promise<DeliveryOutcome>;
        try {
          push = sender.send(token, content, context, receipt);
        } catch (error) {
          // A sender that throws rather than rejects (apns-environment-sender.ts is not async) counts the same way.
          push = Promise.reject(error);
        }
        return timed(started, push);
      },
      sendLiveActivity: (token, push, reader, apnsEnvironment) => {
        const started = performance.now();
        return timed(started, sender.sendLiveActivity(token, push, reader, apnsEnvironment));
      },
      ...(sender.stats ? { stats: sender.stats.bind(sender) } : {}),
      // One request per update for every device on the channel: not a push to count per device.
      ...(sender.liveActivityBroadcast ? { liveActivityBroadcast: sender.liveActivityBroadcast } : {}),
      close: () => sender.close(),
    };
  };

  return (providers) => ({
    ios: wrap('ios', providers.ios),
    android: wrap('android', providers.android),
    web: wrap('web', providers.web),
  });
}
