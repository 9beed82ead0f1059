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
  /**
   * Web Push: push-service origins whose every answer in the batch was one misconfiguration answer (the guard below,
   * judged per origin): their pushes failed with `reason`, nobody at them was unsubscribed, and `fix` says what to change.
   */
  misconfiguredOrigins: Array<{ origin: string; reason: string; fix: string }>;
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
  /**
   * Web Push: the push-service origin of a subscriber's endpoint. Given, the misconfiguration guard judges each origin
   * alone, since one service (Apple's, refusing our VAPID subject) can refuse everything while the others deliver.
   * Absent: the batch is judged as one (APNs and FCM, one provider per batch).
   */
  originOf?: (id: string) => string | null;
}

export function settleBatch(outcomes: ReadonlyMap<string, DeliveryOutcome>, options: SettleOptions): BatchSettlement {
  const maxRounds = options.maxRounds ?? MAX_SEND_ROUNDS;
  const fatal = firstFatal(outcomes) ?? (options.originOf ? null : guardAgainstMisconfiguration(outcomes));
  const byOrigin = fatal === null && options.originOf ? guardEachOrigin(outcomes, options.originOf) : null;
  const misconfiguredOrigins = byOrigin
    ? [...byOrigin.verdicts].map(([origin, verdict]) => ({ origin, ...verdict }))
    : [];
  const result: BatchSettlement = {
    delivered: [],
    failed: [],
    dead: [],
    retry: [],
    fatal,
    misconfiguredOrigins,
    learned: [],
  };
  const lost: RetryGroup = { ids: [], retryAfterMs: null, connectionLost: true };
  const waited: RetryGroup = { ids: [], retryAfterMs: null, connectionLost: false };
  for (const [id, outcome] of outcomes) {
    const misconfigured = byOrigin?.verdictOf(id);
    if (outcome.kind === 'delivered') {
      result.delivered.push(id);
      if (outcome.apnsEnvironment) result.learned.push({ id, environment: outcome.apnsEnvironment });
    } else if (fatal !== null) result.failed.push({ id, reason: fatal.reason });
    else if (misconfigured) result.failed.push({ id, reason: misconfigured.reason });
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
  for (const outcome of outcomes.values())
    if (outcome.kind === 'fatal') return { reason: outcome.reason, fix: outcome.fix };
  return null;
}

/** What to change when a push service (`where`) refuses every push it got: our VAPID keys or subject, or our request. */
const webPushVapidFix = (where: string) =>
  `${where} refused the VAPID signature for every browser of the batch: the VAPID keys changed since these browsers subscribed (CLARION_VAPID_PUBLIC_KEY / CLARION_VAPID_PRIVATE_KEY, or \`clarion web-push rotate-keys\`; restore the previous pair), or the subject is refused: CLARION_VAPID_SUBJECT (or the app's subject) must be a mailto: or https: URL without spaces or angle brackets, not on localhost (Apple answers BadJwtToken)`;
const webPushRequestFix = (where: string) =>
  `${where} refused every push of the batch as a bad request (TTL, Urgency, Topic or encoding; RFC 8030 §5): its rules differ from Clarion's, and its answer is logged at debug level`;

/**
 * Some provider answers unsubscribe a token but also mean a misconfiguration when EVERY token gets them: APNs
 * BadDeviceToken (also a sandbox token sent to production, or the reverse) and DeviceTokenNotForTopic (wrong
 * CLARION_APNS_TOPIC), FCM SENDER_ID_MISMATCH (the service account of another project). A whole batch of at least
 * MISCONFIGURATION_MIN_BATCH tokens answering the same one is treated as our configuration, not the devices: the batch
 * fails loudly and nobody is unsubscribed. Web Push 400/401/403 never unsubscribe (web-push/web-push-response.ts), but
 * the same rule, applied to each push-service origin alone, names them as our VAPID keys or subject.
 */
const MISCONFIGURATION_REASONS: Record<string, string> = {
  // Only a token both hosts refused is BadDeviceToken (apns/apns-environment-sender.ts), or one registered with an
  // environment that turned out wrong: a whole batch of them is a wrong host URL or a wrong app.
  BadDeviceToken:
    'both APNs hosts refused every token: check CLARION_APNS_URL (production) and CLARION_APNS_SANDBOX_URL (sandbox), that the environment apps register with is right, and that the tokens come from this app',
  DeviceTokenNotForTopic: "check CLARION_APNS_TOPIC: it must be the app's bundle id",
  SENDER_ID_MISMATCH:
    'check CLARION_FCM_SERVICE_ACCOUNT_FILE: it must belong to the Firebase project the app registers with',
};
export const MISCONFIGURATION_MIN_BATCH = 10;

/**
 * What to change when every token answers `providerReason`, or undefined when that answer is the devices' own.
 * `where`: the Web Push service(s) that answered.
 */
function misconfigurationFix(providerReason: string, where = 'the push services'): string | undefined {
  const web = /^web-push:(400|401|403)(:|$)/.exec(providerReason);
  if (web) return web[1] === '400' ? webPushRequestFix(where) : webPushVapidFix(where);
  return MISCONFIGURATION_REASONS[providerReason.replace(/^(apns|fcm):/, '')];
}

/** The answer an outcome gives the guard: a dead token's provider reason, or a refusal's (Web Push 400/401/403). */
function guardedReason(outcome: DeliveryOutcome): string | null {
  if (outcome.kind === 'token_dead') return outcome.providerReason;
  if (outcome.kind === 'rejected') return outcome.reason;
  return null;
}

/** The fatal outcome a whole batch of one misconfiguration answer amounts to, or null. */
export function guardAgainstMisconfiguration(
  outcomes: ReadonlyMap<string, DeliveryOutcome>,
): { reason: string; fix: string } | null {
  return guardOf([...outcomes.values()]);
}

function guardOf(outcomes: readonly DeliveryOutcome[], where?: string): { reason: string; fix: string } | null {
  if (outcomes.length < MISCONFIGURATION_MIN_BATCH) return null;
  const reasons = new Set(outcomes.map(guardedReason));
  const [only] = reasons;
  if (reasons.size !== 1 || only === null || only === undefined) return null;
  const fix = misconfigurationFix(only, where);
  return fix ? { reason: `provider_configuration:${only}`, fix } : null;
}

/**
 * The guard per push-service origin: each origin's answers judged alone. An answer without an origin (the subscriber
 * has no readable endpoint) belongs to none. The origins are read only when the batch holds enough answers the guard
 * looks at for any origin to reach MISCONFIGURATION_MIN_BATCH: a batch that delivered never parses its subscriptions.
 */
function guardEachOrigin(
  outcomes: ReadonlyMap<string, DeliveryOutcome>,
  originOf: (id: string) => string | null,
): {
  verdicts: Map<string, { reason: string; fix: string }>;
  verdictOf: (id: string) => { reason: string; fix: string } | undefined;
} {
  const verdicts = new Map<string, { reason: string; fix: string }>();
  const none = { verdicts, verdictOf: () => undefined };
  let candidates = 0;
  for (const outcome of outcomes.values()) {
    const reason = guardedReason(outcome);
    if (reason !== null && misconfigurationFix(reason)) candidates += 1;
  }
  if (candidates < MISCONFIGURATION_MIN_BATCH) return none;
  const origins = new Map<string, string>();
  const groups = new Map<string, DeliveryOutcome[]>();
  for (const [id, outcome] of outcomes) {
    const origin = originOf(id);
    if (origin === null) continue;
    origins.set(id, origin);
    const group = groups.get(origin);
    if (group) group.push(outcome);
    else groups.set(origin, [outcome]);
  }
  for (const [origin, group] of groups) {
    const verdict = guardOf(group, `the push service at ${origin}`);
    if (verdict) verdicts.set(origin, verdict);
  }
  return { verdicts, verdictOf: (id: string) => verdicts.get(origins.get(id) ?? '') };
}
