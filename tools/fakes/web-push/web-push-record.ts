import type { RequestRecordBase } from '../fake-record.ts';
import type { VapidClaims } from './web-push-vapid.ts';
import type { DeclarativeParse } from './web-push-declarative.ts';

/** One push message as the fake push service received, checked, decrypted and answered it. */
export interface WebPushRecord extends RequestRecordBase {
  /** The subscription named by the path; null for a path that names none. */
  subscriptionId: string | null;
  status: number;
  /** Why the fake refused it (null when accepted): the protocol rule or the injected outcome. */
  reason: string | null;
  ttl: number | null;
  urgency: string | null;
  topic: string | null;
  /** The verified VAPID claims, when the signature checked out. */
  vapid: VapidClaims | null;
  /** `k` of the Authorization header. */
  vapidPublicKey: string | null;
  bodyBytes: number;
  /** The decrypted message, as a service worker would get it from `event.data.text()`; null when not decrypted. */
  clearText: string | null;
  /** clearText parsed as JSON (`event.data.json()`), or null. */
  message: unknown;
  /**
   * What a browser with Declarative Web Push makes of the message (web-push-declarative.ts): `classic` for the
   * service worker, `declarative` shown by the browser itself, `invalid` with the rule it breaks; null when not
   * decrypted.
   */
  declarative: DeclarativeParse | null;
  /** Why an accepted message did not decrypt (a real service cannot tell; the browser would drop it). */
  decryptError: string | null;
  /** True when the answer came from failNext or setSubscriptionOutcome rather than the protocol's rules. */
  injected: boolean;
  /** False when the client had gone before the answer could be sent. */
  answered: boolean;
}
