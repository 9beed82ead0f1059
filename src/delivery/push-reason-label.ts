import type { DeliveryOutcome } from './delivery-outcome.ts';

/** Distinct reason labels one process exports at most; later new ones are counted as `other`. */
export const MAX_REASON_LABELS = 64;

const PLAIN_REASON = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * The `reason` label of a push outcome, kept to a bounded set. Most reasons are words from the providers' documented
 * tables (`apns:BadDeviceToken`, `fcm:UNREGISTERED`, `web-push:timeout`), but a connection failure carries the
 * system's message (`network: socket hang up`) and an unknown provider answer its own text: those are cut to the part
 * before the first space or colon-space (`network`), so a label never holds free text, ids or addresses.
 */
export function pushReasonLabel(outcome: DeliveryOutcome): string {
  if (outcome.kind === 'delivered') return '';
  const reason = outcome.reason;
  if (PLAIN_REASON.test(reason)) return reason;
  const head = reason.split(/[\s]|: /, 1)[0]!.replace(/:$/, '');
  return PLAIN_REASON.test(head) ? head : 'other';
}
