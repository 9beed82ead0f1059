import { createECDH, randomBytes } from 'node:crypto';
import { type BrowserKeys, decryptWebPush } from './web-push-decrypt.ts';

/**
 * What a browser holds for one push subscription: a P-256 key pair and a 16-byte auth secret (RFC 8291 §2, §3.2),
 * generated the way a browser generates them, and the subscription as `PushSubscription.toJSON()` gives it to the page
 * (docs/protocols.md 4.1). Tests register that JSON with Clarion and read back the clear text the fake decrypted.
 */
export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime: number | null;
  keys: { p256dh: string; auth: string };
}

export interface SimulatedBrowser {
  readonly keys: BrowserKeys;
  /** base64url of the 65-byte public key. */
  readonly p256dh: string;
  /** base64url of the 16-byte auth secret. */
  readonly auth: string;
  subscription(endpoint: string): PushSubscriptionJson;
  decrypt(body: Buffer): Buffer;
}

export function createSimulatedBrowser(): SimulatedBrowser {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const keys: BrowserKeys = { ecdh, authSecret: randomBytes(16) };
  const p256dh = ecdh.getPublicKey().toString('base64url');
  const auth = keys.authSecret.toString('base64url');
  return {
    keys,
    p256dh,
    auth,
    subscription: (endpoint) => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
    decrypt: (body) => decryptWebPush(body, keys),
  };
}
