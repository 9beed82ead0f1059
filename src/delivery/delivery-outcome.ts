import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import type { SkipReason } from '../domain/skip-reasons.ts';

/**
 * What happened to one push, in the terms the delivery engine acts on. Each provider has one pure mapping from its
 * status code and reason to an outcome (apns/apns-response.ts, fcm/fcm-response.ts).
 */
export type DeliveryOutcome =
  /**
   * The provider accepted the push. `apnsEnvironment`: the APNs host that accepted a token whose environment was not
   * known yet (apns/apns-environment-sender.ts), for the settling transaction to remember on the subscriber.
   */
  | { kind: 'delivered'; apnsEnvironment?: ApnsEnvironment }
  /**
   * Transient: try this token again later; `retryAfterMs` from the provider's Retry-After when it gave one.
   * `connectionLost`: no answer came because the connection died under the push: it is sent again at once on a new
   * connection (send-batch.ts), never behind another push's wait.
   */
  | { kind: 'retry'; reason: string; retryAfterMs: number | null; connectionLost?: boolean }
  /**
   * The token will never work again: unsubscribe the subscriber with this reason. `invalidSince` (epoch ms): APNs 410's
   * `timestamp`, when the token was last known invalid; a subscriber that registered the token after it is kept.
   */
  | {
      kind: 'token_dead';
      reason: 'token_unregistered' | 'token_invalid';
      providerReason: string;
      invalidSince?: number | null;
    }
  /** This one message is wrong for the provider (e.g. too large) and retrying cannot help. */
  | { kind: 'rejected'; reason: string }
  /**
   * Our credentials or configuration are wrong (bad key, wrong team, wrong topic for every token): every push in
   * the batch would fail the same way. The batch fails loudly and `fix` tells the operator what to change.
   */
  | { kind: 'fatal'; reason: string; fix: string };

/**
 * What a send job records for one subscriber: the provider's answer, or its own decision not to send the push (yet).
 */
export type SendOutcome =
  | DeliveryOutcome
  /**
   * Not sent, on purpose: the subscriber left since the dispatch, or a rule of the notification or its channel says
   * not to send it (domain/skip-reasons.ts). Counted as skipped, never as failed, and never sent again.
   */
  | { kind: 'skipped'; reason: SkipReason }
  /**
   * Not sent yet, on purpose: the subscriber is inside its channel's quiet hours, which end at `until` (epoch ms); the
   * push goes out then, in a follow-up send job (domain/quiet-hours.ts).
   */
  | { kind: 'held'; until: number };
