import type { SendOutcome } from './delivery-outcome.ts';
import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import type { SkipReason } from '../domain/skip-reasons.ts';
import { MAX_SEND_ROUNDS } from './job-kinds.ts';
import { reconnectRetryDelayMs, retryDelayMs } from '../queue/retry-policy.ts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { JobDefinition } from '../queue/job-definition.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import { JobRetryError, type JobRow } from '../queue/job-types.ts';
import type { Store } from '../store/database.ts';
import type { Database } from '../store/schema.ts';

/*
 * A send batch, whichever job sends it (notifications: send-batch-job.ts; Live Activities:
 * live-activities/live-activity-send-job.ts): the send loop, the pure rules from outcomes to what the settling
 * transaction writes, and settling a batch whose pushes are already out without ever sending them again.
 */

/**
 * Pushes in flight at once per send job. The provider clients queue what their HTTP/2 sessions cannot take yet, so
 * this only bounds the memory of one batch; with the 500-token batches (job-kinds.ts) every token is in flight at once,
 * as before, while a larger caller-made batch cannot open thousands of streams.
 */
const SEND_CONCURRENCY = 500;

/**
 * The longest stretch, in milliseconds, that a send loop runs without letting the event loop turn. Starting 500
 * pushes is one synchronous run of ~500 `session.request()` calls (tens of ms on the 2-core machine, docs/performance.md,
 * "Accept path"), during which the API in the same process answers nothing; past this budget the loop waits for the
 * event loop's next turn (setImmediate: pending I/O first, then the rest of the sends). Exported for its test
 * (tests/delivery/engine/batch-send.test.ts). Measured against no slicing (docs/performance.md, "Levers tried and not kept"): not
 * separable on a saturated machine; kept because it bounds this stretch by construction.
 */
export const SEND_SLICE_MS = 4;

/**
 * The send loop of both send jobs: `sendOne` for each id, at most `concurrency` at a time, and one outcome per id
 * (in the order of `ids`). `sendOne` answers null for an id with nothing to send (its token gone since the dispatch).
 * A thrown error is a failure of the connection rather than an answer, so that token is retried in the next round.
 * `onAnswer` is called as each push settles: the send job's progress for the worker (worker-pool.ts, STALLED_AFTER_MS).
 */
export function sendEach(
  ids: readonly string[],
  sendOne: (id: string) => Promise<SendOutcome | null>,
  options: { concurrency?: number; onAnswer?: () => void } = {},
): Promise<Map<string, SendOutcome>> {
  const { concurrency = SEND_CONCURRENCY, onAnswer } = options;
  // Callbacks on each push's promise rather than `concurrency` async lanes that await it: no async function, lane
  // promise and Map entry per push, one array slot instead (bench/fanout-cpu.ts).
  return new Promise((resolve) => {
    const limit = Math.max(1, concurrency);
    const answers = new Array<SendOutcome | null | undefined>(ids.length);
    let next = 0;
    let inFlight = 0;
    let answered = 0;
    let resumeScheduled = false;
    let sliceStart = performance.now();
    const finish = () => {
      const outcomes = new Map<string, SendOutcome>();
      for (let index = 0; index < ids.length; index += 1) {
        const answer = answers[index];
        if (answer) outcomes.set(ids[index]!, answer);
      }
      resolve(outcomes);
    };
    const settle = (index: number, answer: SendOutcome | null) => {
      onAnswer?.();
      answers[index] = answer;
      inFlight -= 1;
      answered += 1;
      if (answered === ids.length) finish();
      else startMore();
    };
    const resume = () => {
      resumeScheduled = false;
      sliceStart = performance.now();
      startMore();
    };
    function startMore(): void {
      while (next < ids.length && inFlight < limit) {
        if (performance.now() - sliceStart > SEND_SLICE_MS) {
          // Pending I/O first (setImmediate), then the rest of the sends in a new slice.
          if (!resumeScheduled) {
            resumeScheduled = true;
            setImmediate(resume);
          }
          return;
        }
        const index = next;
        next += 1;
        inFlight += 1;
        let answer: Promise<SendOutcome | null>;
        try {
          answer = sendOne(ids[index]!);
        } catch (error) {
          answer = Promise.reject(error);
        }
        answer.then(
          (outcome) => settle(index, outcome),
          (error: unknown) =>
            settle(index, { kind: 'retry', reason: `network: ${(error as Error).message}`, retryAfterMs: null }),
        );
      }
    }
    if (ids.length === 0) finish();
    else startMore();
  });
}

/**
 * What one sent batch's outcomes imply, for both send jobs (notifications and Live Activities). Pure: the per-token
 * outcomes in, the settlement the job's transaction writes out.
 */
export interface BatchSettlement {
  delivered: string[];
  /** Not sent on purpose, with the reason (delivery-outcome.ts): counted as skipped. */
  skipped: Array<{ id: string; reason: SkipReason }>;
  /** Waiting for the end of their quiet hours: a follow-up job per moment (delivery-outcome.ts). */
  held: Array<{ until: number; ids: string[] }>;
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

export function settleBatch(outcomes: ReadonlyMap<string, SendOutcome>, options: SettleOptions): BatchSettlement {
  const maxRounds = options.maxRounds ?? MAX_SEND_ROUNDS;
  const fatal = firstFatal(outcomes) ?? (options.originOf ? null : guardAgainstMisconfiguration(outcomes));
  const byOrigin = fatal === null && options.originOf ? guardEachOrigin(outcomes, options.originOf) : null;
  const misconfiguredOrigins = byOrigin
    ? [...byOrigin.verdicts].map(([origin, verdict]) => ({ origin, ...verdict }))
    : [];
  const result: BatchSettlement = {
    delivered: [],
    skipped: [],
    held: [],
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
    } else if (outcome.kind === 'skipped') result.skipped.push({ id, reason: outcome.reason });
    else if (outcome.kind === 'held') holdUntil(result.held, id, outcome.until);
    else if (fatal !== null) result.failed.push({ id, reason: fatal.reason });
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

function holdUntil(held: BatchSettlement['held'], id: string, until: number): void {
  const group = held.find((candidate) => candidate.until === until);
  if (group) group.ids.push(id);
  else held.push({ until, ids: [id] });
}

function firstFatal(outcomes: ReadonlyMap<string, SendOutcome>): { reason: string; fix: string } | null {
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
function guardedReason(outcome: SendOutcome): string | null {
  if (outcome.kind === 'token_dead') return outcome.providerReason;
  if (outcome.kind === 'rejected') return outcome.reason;
  return null;
}

/** The fatal outcome a whole batch of one misconfiguration answer amounts to, or null. */
export function guardAgainstMisconfiguration(
  outcomes: ReadonlyMap<string, SendOutcome>,
): { reason: string; fix: string } | null {
  return guardOf([...outcomes.values()]);
}

function guardOf(outcomes: readonly SendOutcome[], where?: string): { reason: string; fix: string } | null {
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
  outcomes: ReadonlyMap<string, SendOutcome>,
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
  const groups = new Map<string, SendOutcome[]>();
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

/**
 * Settling a batch whose pushes are already out, without ever sending them again because the settling failed.
 *
 * A send job sends first and then commits what the answers imply in one transaction that also completes the job. If
 * that transaction fails (disk full, a read-only or failed-over database, a deadlock), failing the job would make its
 * next attempt send the whole batch again: 1,500 duplicate pushes in a full-disk test, without any crash.
 * So, in order:
 * 1. the transaction is retried in memory with backoff (SETTLE_RETRY_DELAYS_MS), which rides out lock waits, a
 *    failover and a checkpoint freeing WAL space;
 * 2. then the answers are kept: in this process's SettleBacklog, and durably in the job's own payload (`sent`), by a
 *    one-row UPDATE under the job's lease, much smaller than the settling transaction and so often possible when it is
 *    not; the job then fails its attempt and the queue retries it with its usual backoff;
 * 3. the next attempt of the job, on any worker, finds the answers (payload first, then this process's backlog) and
 *    settles them without sending.
 * Crash-correct: the answers are written with the job's row and guarded by its lease, and settling them commits with
 * the job's completion, so they are applied exactly once. Only a crash (or an eviction from a full backlog) before the
 * answers are kept repeats the batch: the in-flight repeat docs/delivery.md allows.
 */
export interface RecordedOutcomes {
  /** When the batch was sent (epoch ms). */
  sentAt: number;
  /** Subscriber id → the provider's answer. */
  outcomes: Record<string, SendOutcome>;
  /** Subscriber id → the token the push went to, where settling needs it (a Live Activity drops that token only). */
  tokens?: Record<string, string>;
}

/** Pauses between in-memory attempts of a failed settling transaction: about 5 s in all, well inside a job's lease. */
export const SETTLE_RETRY_DELAYS_MS: readonly number[] = [250, 1_000, 4_000];

/** Thrown by a settling transaction whose `queue.complete` found the lease lost: another worker owns the batch now. */
export class LeaseLostError extends Error {
  constructor() {
    super('lease lost: another worker runs this batch now');
    this.name = 'LeaseLostError';
  }
}

/**
 * Answers of sent batches whose settling failed, by job id, for this process's next attempt of the job when the durable
 * copy could not be written either. Bounded: the oldest are forgotten past MAX_KEPT (their batches would be sent again).
 */
export class SettleBacklog {
  static readonly MAX_KEPT = 200;
  private readonly kept = new Map<string, RecordedOutcomes>();

  keep(jobId: string, recorded: RecordedOutcomes): void {
    this.kept.delete(jobId);
    this.kept.set(jobId, recorded);
    if (this.kept.size > SettleBacklog.MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
  }

  recall(jobId: string): RecordedOutcomes | undefined {
    return this.kept.get(jobId);
  }

  forget(jobId: string): void {
    this.kept.delete(jobId);
  }
}

export interface SettleSentBatch<Payload extends { sent?: RecordedOutcomes }> {
  store: Store;
  queue: JobQueue;
  logger: Logger;
  job: JobRow;
  owner: string;
  definition: JobDefinition<Payload>;
  payload: Payload;
  /**
   * The answers, needed only when the transaction fails: a function builds them then, so a batch that settles (nearly
   * all) never turns its 500 answers into an object (~0.9 KB of garbage per push in bench/fanout-cpu.ts).
   */
  recorded: RecordedOutcomes | (() => RecordedOutcomes);
  backlog: SettleBacklog;
  /** The settling transaction's work; throws LeaseLostError when `queue.complete` finds the lease lost. */
  write: (trx: Kysely<Database>) => Promise<void>;
  delaysMs?: readonly number[];
}

/** Commits `write` (see above); when it cannot, keeps the answers and throws JobRetryError so the job is tried again. */
export async function settleSentBatch<Payload extends { sent?: RecordedOutcomes }>(
  input: SettleSentBatch<Payload>,
): Promise<void> {
  const { store, job, logger } = input;
  const delays = input.delaysMs ?? SETTLE_RETRY_DELAYS_MS;
  let failure: unknown;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await store.db.transaction().execute(input.write);
      input.backlog.forget(job.id);
      return;
    } catch (error) {
      if (error instanceof LeaseLostError) throw error;
      failure = error;
      if (attempt >= delays.length) break;
      logger.warn(
        { err: error, jobId: job.id, kind: job.kind, retryInMs: delays[attempt] },
        'settling a sent batch failed; trying again',
      );
      await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
    }
  }

  const recorded = typeof input.recorded === 'function' ? input.recorded() : input.recorded;
  input.backlog.keep(job.id, recorded);
  let durable = input.payload.sent !== undefined;
  if (!durable) {
    try {
      durable = await input.definition.updatePayload(input.queue, store.db, job, input.owner, {
        ...input.payload,
        sent: recorded,
      });
    } catch (error) {
      logger.warn(
        { err: error, jobId: job.id },
        'could not record the sent batch in its job either; keeping it in memory',
      );
    }
  }
  const message = failure instanceof Error ? failure.message : String(failure);
  logger.error(
    { err: failure, jobId: job.id, kind: job.kind, attempt: job.attempt, kept: durable ? 'job payload' : 'memory' },
    'settling a sent batch failed; its answers are kept and the next attempt settles them without sending again',
  );
  throw new JobRetryError(
    `settling the sent batch failed (${message}); kept in ${durable ? 'the job payload' : 'memory'}, to settle without sending again`,
  );
}

/** This attempt is the job's last: if it fails, the queue fails the job for good. */
export function isLastAttempt(job: Pick<JobRow, 'attempt' | 'max_attempts'>): boolean {
  return job.attempt >= job.max_attempts;
}

/**
 * What a send job that is giving up (its last attempt failed) settles: the answers it has, with no further round, and
 * `attempts_exhausted` for every push it has no answer for, so the notification still reaches a final status.
 */
export function givenUpOutcomes(
  subscriberIds: readonly string[],
  recorded: RecordedOutcomes | undefined,
): Map<string, SendOutcome> {
  const outcomes = new Map<string, SendOutcome>();
  for (const id of subscriberIds)
    outcomes.set(id, recorded?.outcomes[id] ?? { kind: 'rejected', reason: 'attempts_exhausted' });
  return outcomes;
}

/**
 * `givenUpOutcomes` for a job that sends to tokens it records (a Live Activity's, a widget's): what was answered
 * settles as answered, a subscriber without an answer there was not sent to, and with nothing recorded every
 * subscriber of the batch failed. Returns the outcomes and the record the settling writes with them.
 */
export function givenUpRecord(
  subscriberIds: readonly string[],
  recorded: RecordedOutcomes | undefined,
  now: number,
): { outcomes: Map<string, SendOutcome>; recorded: RecordedOutcomes } {
  const outcomes = givenUpOutcomes(recorded ? Object.keys(recorded.outcomes) : subscriberIds, recorded);
  return {
    outcomes,
    recorded: {
      sentAt: now,
      outcomes: Object.fromEntries(outcomes),
      ...(recorded?.tokens ? { tokens: recorded.tokens } : {}),
    },
  };
}
