import { FakeBehaviour } from '../fake-behaviour.ts';

/**
 * What tests can make the fake push service answer besides the protocol's rules: a status for one subscription
 * (404/410 gone, 429 throttled with Retry-After, 5xx), bursts of failures for the next messages, latency, and an
 * endpoint that answers at once and then drips its body (any URL a page registers is an endpoint: its owner's server
 * may do this).
 */
export interface WebPushOutcome {
  status: number;
  /** Sent as Retry-After (seconds), as services do with 429 and 503 (RFC 8030 §8.4). */
  retryAfterSeconds?: number;
  /** Sent as the JSON body instead of the service's own (web-push-answers.ts), e.g. autopush's `{"errno": 106}`. */
  body?: Record<string, unknown>;
  /** The status and headers at once, then the body one byte every `dripBodyMs`, never ending (until the client goes). */
  dripBodyMs?: number;
}

/** What a latency function sees. */
export interface WebPushLatencyContext {
  subscriptionId: string | null;
}

export class WebPushBehaviour extends FakeBehaviour<WebPushOutcome, WebPushLatencyContext> {}
