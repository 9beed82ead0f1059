import { FakeBehaviour } from '../fake-behaviour.ts';
import { type FcmErrorCode, type GoogleErrorAnswer, fcmError, fcmErrorCodes } from './fcm-errors.ts';

/**
 * What tests can make the fake FCM answer besides the protocol's own rules: per-token outcomes (UNREGISTERED 404,
 * SENDER_ID_MISMATCH 403, ...), failure bursts (QUOTA_EXCEEDED 429 / UNAVAILABLE 503 with Retry-After), latency.
 */
export interface FcmOutcome {
  errorCode: FcmErrorCode;
  /** Overrides the catalog's message (fcm-errors.ts). */
  message?: string;
  /** Sent as Retry-After (seconds); FCM sends it with 429 and 503 (docs/protocols.md 3.4, 3.5). */
  retryAfterSeconds?: number;
}

/** What a latency function sees. */
export interface FcmLatencyContext {
  endpoint: 'send' | 'token';
  projectId: string | null;
  /** The message's registration token, when it targets one. */
  token: string | null;
}

export class FcmBehaviour extends FakeBehaviour<FcmOutcome, FcmLatencyContext> {
  override setTokenOutcome(token: string, outcome: FcmOutcome | null): void {
    if (outcome) checkCode(outcome);
    super.setTokenOutcome(token, outcome);
  }

  override failNext(count: number, outcome: FcmOutcome): void {
    checkCode(outcome);
    super.failNext(count, outcome);
  }
}

export function answerFor(outcome: FcmOutcome): GoogleErrorAnswer {
  return fcmError(outcome.errorCode, {
    ...(outcome.message === undefined ? {} : { message: outcome.message }),
    ...(outcome.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: outcome.retryAfterSeconds }),
  });
}

function checkCode(outcome: FcmOutcome): void {
  if (!Object.hasOwn(fcmErrorCodes, outcome.errorCode))
    throw new Error(`unknown FCM errorCode ${JSON.stringify(outcome.errorCode)}`);
}
