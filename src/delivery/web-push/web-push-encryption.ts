import { createECDH, randomBytes } from 'node:crypto';
import { encrypt } from 'http_ece';

/**
 * A push message's body, encrypted for one browser (RFC 8291 aes128gcm, docs/protocols.md 4.3) with `http_ece`, the
 * library the `web-push` package encrypts with: a fresh ephemeral key pair and salt per message, one record.
 */

/** What a push service must accept (RFC 8030 §7.2: it may refuse more with 413); docs/protocols.md 4.3. */
export const WEB_PUSH_MAX_BODY_BYTES = 4096;
/** The aes128gcm header (salt 16, record size 4, key id length 1, sender public key 65), delimiter 1 and tag 16. */
const ENCRYPTION_OVERHEAD_BYTES = 86 + 1 + 16;

/** The encrypted body's size for `clearBytes` of plaintext (no padding): checkable before accepting a notification. */
export function encryptedWebPushBytes(clearBytes: number): number {
  return clearBytes + ENCRYPTION_OVERHEAD_BYTES;
}

export function encryptWebPush(clear: Buffer, keys: { p256dh: string; auth: string }): Buffer {
  const sender = createECDH('prime256v1');
  sender.generateKeys();
  return encrypt(clear, {
    version: 'aes128gcm',
    dh: keys.p256dh,
    privateKey: sender,
    authSecret: keys.auth,
    salt: randomBytes(16),
  });
}
