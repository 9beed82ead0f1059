import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome } from '../../src/delivery/delivery-outcome.ts';
import { pushReasonLabel } from '../../src/delivery/push-reason-label.ts';

describe('pushReasonLabel', () => {
  const cases: Array<[DeliveryOutcome, string]> = [
    [{ kind: 'delivered' }, ''],
    [{ kind: 'token_dead', reason: 'token_unregistered', providerReason: 'Unregistered' }, 'token_unregistered'],
    [{ kind: 'rejected', reason: 'apns:PayloadTooLarge' }, 'apns:PayloadTooLarge'],
    [{ kind: 'retry', reason: 'web-push:origin_unresponsive', retryAfterMs: 1_000 }, 'web-push:origin_unresponsive'],
    [{ kind: 'fatal', reason: 'apns_not_configured', fix: 'set …' }, 'apns_not_configured'],
    // Free text from the system or a provider is cut to its first word: no addresses, ids or messages in labels.
    [{ kind: 'retry', reason: 'network: connect ECONNREFUSED 10.0.0.7:443', retryAfterMs: null }, 'network'],
    [{ kind: 'retry', reason: 'network: socket hang up', retryAfterMs: null }, 'network'],
    [{ kind: 'rejected', reason: 'web-push:413 Payload Too Large' }, 'web-push:413'],
    [{ kind: 'rejected', reason: '¿qué? nope' }, 'other'],
    [{ kind: 'rejected', reason: 'x'.repeat(200) }, 'other'],
  ];
  it.each(cases)('%j → %s', (outcome, label) => {
    expect(pushReasonLabel(outcome)).toBe(label);
  });
});
