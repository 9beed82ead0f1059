import { createCipheriv, createECDH, createHmac, randomBytes, type ECDH } from 'node:crypto';

/**
 * A push message's body, encrypted for one browser (RFC 8291 aes128gcm, docs/protocols.md 4.3) with node:crypto: a
 * fresh ephemeral key pair and salt per message, one record. The steps are docs/protocols.md 4.3's, which reproduce
 * RFC 8291 Appendix A byte for byte (tests/delivery/web-push/web-push-encryption.test.ts); direct calls take ~10 % less
 * CPU than the `http_ece` library, which the tests keep as an independent implementation to agree with.
 */

/** What a push service must accept (RFC 8030 §7.2: it may refuse more with 413); docs/protocols.md 4.3. */
export const WEB_PUSH_MAX_BODY_BYTES = 4096;
/** The aes128gcm header (salt 16, record size 4, key id length 1, sender public key 65), delimiter 1 and tag 16. */
const HEADER_BYTES = 86;
const ENCRYPTION_OVERHEAD_BYTES = HEADER_BYTES + 1 + 16;
/** The record size in the header: one record holds the whole message (at most 4,096 bytes with its overhead). */
const RECORD_SIZE = 4096;
const KEY_INFO = Buffer.from('WebPush: info\0', 'latin1');
const CEK_INFO = Buffer.from('Content-Encoding: aes128gcm\0\x01', 'latin1');
const NONCE_INFO = Buffer.from('Content-Encoding: nonce\0\x01', 'latin1');
const LAST_RECORD = Buffer.of(2);

/** The encrypted body's size for `clearBytes` of plaintext (no padding): checkable before accepting a notification. */
export function encryptedWebPushBytes(clearBytes: number): number {
  return clearBytes + ENCRYPTION_OVERHEAD_BYTES;
}

export function encryptWebPush(clear: Buffer, keys: { p256dh: string; auth: string }): Buffer {
  const sender = createECDH('prime256v1');
  sender.generateKeys();
  return encryptWebPushWith(clear, keys, sender, randomBytes(16));
}

/** The encryption with a chosen sender key pair and salt: what RFC 8291 Appendix A fixes. */
export function encryptWebPushWith(
  clear: Buffer,
  keys: { p256dh: string; auth: string },
  sender: ECDH,
  salt: Buffer,
): Buffer {
  const uaPublic = Buffer.from(keys.p256dh, 'base64url');
  const asPublic = sender.getPublicKey();
  const hmac = (key: Buffer, data: Buffer): Buffer => createHmac('sha256', key).update(data).digest();
  const prkKey = hmac(Buffer.from(keys.auth, 'base64url'), sender.computeSecret(uaPublic));
  const ikm = hmac(prkKey, Buffer.concat([KEY_INFO, uaPublic, asPublic, Buffer.of(1)]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, CEK_INFO).subarray(0, 16);
  const nonce = hmac(prk, NONCE_INFO).subarray(0, 12);
  const header = Buffer.alloc(HEADER_BYTES);
  salt.copy(header, 0);
  header.writeUInt32BE(RECORD_SIZE, 16);
  header[20] = asPublic.length;
  asPublic.copy(header, 21);
  const cipher = createCipheriv('aes-128-gcm', cek, nonce);
  return Buffer.concat([header, cipher.update(clear), cipher.update(LAST_RECORD), cipher.final(), cipher.getAuthTag()]);
}
