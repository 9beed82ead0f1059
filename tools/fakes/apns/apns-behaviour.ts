import { FakeBehaviour } from '../fake-behaviour.ts';
import { apnsErrorBody, apnsReasons, isApnsReason } from './apns-reasons.ts';

/**
 * What tests can make the fake APNs answer besides the protocol's own rules: per-token outcomes (410 Unregistered
 * with its timestamp, 400 BadDeviceToken, 429 TooManyRequests...), failure bursts, latency, and which bundle a device
 * token belongs to (so DeviceTokenNotForTopic can be provoked).
 */
export interface ApnsOutcome {
  /** An APNs reason string, e.g. 'Unregistered', 'BadDeviceToken', 'TooManyRequests', 'ServiceUnavailable'. */
  reason: string;
  /** Defaults to the reason's status in the catalog (apns-reasons.ts); required for a reason not in it. */
  status?: number;
  /** For 410: epoch ms the token was last seen invalid; defaults to the time of the request. */
  timestamp?: number;
  /** Sent as the Retry-After header (seconds), for 429 and 503 bursts. */
  retryAfterSeconds?: number;
}

/** What a latency function sees. */
export interface ApnsLatencyContext {
  token: string | null;
  topic: string | null;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface ApnsAnswer {
  status: number;
  reason: string | null;
  body: string;
  headers: Record<string, string>;
}

export class ApnsBehaviour extends FakeBehaviour<ApnsOutcome, ApnsLatencyContext> {
  private readonly tokenBundles = new Map<string, string>();

  constructor() {
    // Hex tokens are case-insensitive.
    super((token) => token.toLowerCase());
  }

  override setTokenOutcome(token: string, outcome: ApnsOutcome | null): void {
    if (outcome) statusOf(outcome); // fail now, in the test, rather than at request time
    super.setTokenOutcome(token, outcome);
  }

  override failNext(count: number, outcome: ApnsOutcome): void {
    statusOf(outcome);
    super.failNext(count, outcome);
  }

  /** The token now answers 410 Unregistered with this timestamp (ms; default: the time of each request). */
  unregisterToken(token: string, timestampMs?: number): void {
    this.setTokenOutcome(token, {
      reason: 'Unregistered',
      ...(timestampMs === undefined ? {} : { timestamp: timestampMs }),
    });
  }

  /** Ties a device token to one app: a push to it under another bundle id gets 400 DeviceTokenNotForTopic. */
  setTokenTopic(token: string, bundleId: string | null): void {
    if (bundleId === null) this.tokenBundles.delete(token.toLowerCase());
    else this.tokenBundles.set(token.toLowerCase(), bundleId);
  }

  tokenBundle(token: string): string | undefined {
    return this.tokenBundles.get(token.toLowerCase());
  }

  override reset(): void {
    super.reset();
    this.tokenBundles.clear();
  }
}

export function answerFor(outcome: ApnsOutcome, nowMs: number): ApnsAnswer {
  const status = statusOf(outcome);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (outcome.retryAfterSeconds !== undefined) headers['retry-after'] = String(outcome.retryAfterSeconds);
  return {
    status,
    reason: outcome.reason,
    body: apnsErrorBody(outcome.reason, status, outcome.timestamp ?? nowMs),
    headers,
  };
}

function statusOf(outcome: ApnsOutcome): number {
  const status = outcome.status ?? (isApnsReason(outcome.reason) ? apnsReasons[outcome.reason] : undefined);
  if (status === undefined) throw new Error(`unknown APNs reason ${JSON.stringify(outcome.reason)}: give a status too`);
  if (status === 200) throw new Error('an outcome is an error answer; remove the outcome for success');
  return status;
}
