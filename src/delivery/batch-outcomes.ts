import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import type { DeliveryOutcome } from './delivery-outcome.ts';
import { MAX_SEND_ROUNDS } from './job-kinds.ts';
import { reconnectRetryDelayMs, retryDelayMs } from '../queue/retry-policy.ts';

/**
 * What one sent batch's outcomes imply, for both send jobs (notifications and Live Activities). Pure: the per-token
 * outcomes in, the settlement the job's transaction writes out.
 */
export interface BatchSettlement {
  delivered: string[];
  /** Failed for good, with the reason the failure is listed under (dead tokens included). */
  failed: Array<{ id: string; reason: string }>;
  /** Tokens the provider called dead: the caller unsubscribes the subscriber (or drops that Live Activity token). */
  dead: Array<{ id: string; reason: 'token_unregistered' | 'token_invalid' }>;
  /**
   * To send again in the next round, in at most two groups, each a follow-up job of its own: the pushes lost with
   * their connection first, then the rest. Apart, so that a push lost in a reset never waits behind a wait another
   * push's answer asked for (APNs' 15 minutes after a 5xx).
   */
  retry: RetryGroup[];
  /** Our configuration is wrong: every push not delivered failed with this reason, and no token was called dead. */
  fatal: { reason: string; fix: string } | null;
  /** iOS tokens whose APNs environment a delivery just learned (apns/apns-environment-sender.ts), to store. */
  learned: Array<{ id: string; environment: ApnsEnvironment }>;
}

export interface RetryGroup {
  ids: string[];
  /** The longest Retry-After (or provider minimum) among them; null when none gave one. */
  retryAfterMs: number | null;
  /** Lost with their connection: sent again at once on a new one (retry-policy.ts, reconnectRetryDelayMs). */
  connectionLost: boolean;
}

/** How long after settling a group's follow-up job is due; `round` is the follow-up's (the batch's round + 1). */
export function retryGroupDelayMs(group: RetryGroup, round: number, random: () => number = Math.random): number {
  return group.connectionLost ? reconnectRetryDelayMs(round, random) : retryDelayMs(round, random, group.retryAfterMs);
}

export interface SettleOptions {
  /** The batch's round: 0 for the dispatch's batch, +1 per retry. */
  round: number;
  maxRounds?: number;
  /**
   * When the subscriber last registered its token (epoch ms), for APNs 410 answers that carry the moment the token was
   * last known invalid (docs/protocols.md 1.4): a token registered again after that moment is the device's current one,
   * so the subscriber is kept. Absent: every dead token unsubscribes.
   */
  registeredAt?: (id: string) => number | null;
}

export function settleBatch(outcomes: ReadonlyMap<string, DeliveryOutcome>, options: SettleOptions): BatchSettlement {
  const maxRounds = options.maxRounds ?? MAX_SEND_ROUNDS;
  const fatal = firstFatal(outcomes) ?? guardAgainstMisconfiguration(outcomes);
  const result: BatchSettlement = { delivered: [], failed: [], dead: [], retry: [], fatal, learned: [] };
  const lost: RetryGroup = { ids: [], retryAfterMs: null, connectionLost: true };
  const waited: RetryGroup = { ids: [], retryAfterMs: null, connectionLost: false };
  for (const [id, outcome] of outcomes) {
    if (outcome.kind === 'delivered') {
      result.delivered.push(id);
      if (outcome.apnsEnvironment) result.learned.push({ id, environment: outcome.apnsEnvironment });
    } else if (fatal !== null) result.failed.push({ id, reason: fatal.reason });
    else if (outcome.kind === 'token_dead') {
      result.failed.push({ id, reason: outcome.reason });
      const registeredAt = options.registeredAt?.(id) ?? null;
      const reRegistered = outcome.invalidSince != null && registeredAt !== null && registeredAt > outcome.invalidSince;
      if (!reRegistered) result.dead.push({ id, reason: outcome.reason });
    } else if (outcome.kind === 'retry') {
      if (options.round + 1 >= maxRounds) result.failed.push({ id, reason: 'retry_exhausted' });
      else {
        const group = outcome.connectionLost === true ? lost : waited;
        group.ids.push(id);
        if (outcome.retryAfterMs !== null) group.retryAfterMs = Math.max(group.retryAfterMs ?? 0, outcome.retryAfterMs);
      }
    } else result.failed.push({ id, reason: outcome.reason });
  }
  result.retry = [lost, waited].filter((group) => group.ids.length > 0);
  return result;
}

function firstFatal(outcomes: ReadonlyMap<string, DeliveryOutcome>): { reason: string; fix: string } | null {
  for (const outcome of outcomes.values()) if (outcome.kind === 'fatal') return { reason: outcome.reason, fix: outcome.fix };
  return null;
}

const WEB_PUSH_VAPID_FIX =
  'the push services refused the VAPID signature for every browser in the batch: the VAPID keys changed since these browsers subscribed (CLARION_VAPID_PUBLIC_KEY / CLARION_VAPID_PRIVATE_KEY, or `clarion web-push rotate-keys`; restore the previous pair), or CLARION_VAPID_SUBJECT is refused (it must be a mailto: or https: URL that is not localhost)';

/**
 * Some provider answers unsubscribe a token but also mean a misconfiguration when EVERY token gets them: APNs
 * BadDeviceToken (also a sandbox token sent to production, or the reverse) and DeviceTokenNotForTopic (wrong
 * CLARION_APNS_TOPIC), FCM SENDER_ID_MISMATCH (the service account of another project), and Web Push 400/401/403 (a
 * subscription made for another VAPID key, or our signature refused). A whole batch of at least
 * MISCONFIGURATION_MIN_BATCH tokens answering the same one is treated as our configuration, not the devices: the batch
 * fails loudly and nobody is unsubscribed.
 */
const MISCONFIGURATION_REASONS: Record<string, string> = {
  // Only a token both hosts refused is BadDeviceToken (apns/apns-environment-sender.ts), or one registered with an
  // environment that turned out wrong: a whole batch of them is a wrong host URL or a wrong app.
  BadDeviceToken: 'both APNs hosts refused every token: check CLARION_APNS_URL (production) and CLARION_APNS_SANDBOX_URL (sandbox), that the environment apps register with is right, and that the tokens come from this app',
  DeviceTokenNotForTopic: "check CLARION_APNS_TOPIC: it must be the app's bundle id",
  SENDER_ID_MISMATCH: 'check CLARION_FCM_SERVICE_ACCOUNT_FILE: it must belong to the Firebase project the app registers with',
  // Web Push (web-push/web-push-response.ts): every browser's push service refusing our VAPID signature.
  'web-push:400': WEB_PUSH_VAPID_FIX,
  'web-push:401': WEB_PUSH_VAPID_FIX,
  'web-push:403': WEB_PUSH_VAPID_FIX,
};
export const MISCONFIGURATION_MIN_BATCH = 10;

/** The fatal outcome a whole batch of one misconfiguration answer amounts to, or null. */
export function guardAgainstMisconfiguration(outcomes: ReadonlyMap<string, DeliveryOutcome>): { reason: string; fix: string } | null {
  if (outcomes.size < MISCONFIGURATION_MIN_BATCH) return null;
  const reasons = new Set([...outcomes.values()].map((outcome) => (outcome.kind === 'token_dead' ? outcome.providerReason : null)));
  const [only] = reasons;
  if (reasons.size !== 1 || only === null || only === undefined) return null;
  const fix = MISCONFIGURATION_REASONS[only.replace(/^(apns|fcm):/, '')];
  return fix ? { reason: `provider_configuration:${only}`, fix } : null;
}
