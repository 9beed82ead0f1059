import { createDecipheriv, createECDH, createHmac, type ECDH } from 'node:crypto';

/**
 * The receiving side of aes128gcm Web Push encryption (RFC 8291 with RFC 8188, docs/protocols.md 4.3), as a browser
 * does it: written here from the RFC's steps rather than taken from the library Clarion encrypts with, so the fake
 * checks Clarion's encryption independently (the Appendix A vector, docs/protocols.md 4.4, is its unit test).
 */
export interface BrowserKeys {
  /** The browser's P-256 key pair (`p256dh` is its public half). */
  ecdh: ECDH;
  /** The 16-byte auth secret. */
  authSecret: Buffer;
}

export class WebPushDecryptError extends Error {
  override name = 'WebPushDecryptError';
}

const HEADER_FIXED_BYTES = 21; // salt (16) ‖ rs (4) ‖ idlen (1)
const TAG_BYTES = 16;

/** The plaintext of one aes128gcm Web Push message body; throws WebPushDecryptError for anything malformed. */
export function decryptWebPush(body: Buffer, keys: BrowserKeys): Buffer {
  if (body.length < HEADER_FIXED_BYTES) throw new WebPushDecryptError('body shorter than the aes128gcm header');
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  // Web Push puts the sender's ephemeral public key in the key id (RFC 8291 §4): 65 bytes.
  if (idLength !== 65)
    throw new WebPushDecryptError(`key id is ${idLength} bytes; Web Push needs the 65-byte sender public key`);
  const senderPublic = body.subarray(HEADER_FIXED_BYTES, HEADER_FIXED_BYTES + idLength);
  const record = body.subarray(HEADER_FIXED_BYTES + idLength);
  if (record.length < TAG_BYTES + 1) throw new WebPushDecryptError('no record after the header');
  // One record only (RFC 8291 §4): it must fit the declared record size.
  if (record.length > recordSize)
    throw new WebPushDecryptError(`record of ${record.length} bytes is over the declared record size ${recordSize}`);

  let ecdhSecret: Buffer;
  try {
    ecdhSecret = keys.ecdh.computeSecret(senderPublic);
  } catch {
    throw new WebPushDecryptError('the key id is not a P-256 public key');
  }
  const receiverPublic = keys.ecdh.getPublicKey();
  const prkKey = hmac(keys.authSecret, ecdhSecret);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), receiverPublic, senderPublic]);
  const ikm = hmac(prkKey, Buffer.concat([keyInfo, Buffer.of(1)]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.concat([Buffer.from('Content-Encoding: aes128gcm\0'), Buffer.of(1)])).subarray(0, 16);
  const nonce = hmac(prk, Buffer.concat([Buffer.from('Content-Encoding: nonce\0'), Buffer.of(1)])).subarray(0, 12);

  const decipher = createDecipheriv('aes-128-gcm', cek, nonce, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(record.subarray(record.length - TAG_BYTES));
  let padded: Buffer;
  try {
    padded = Buffer.concat([decipher.update(record.subarray(0, record.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new WebPushDecryptError(
      "the record does not decrypt with this subscription's keys (wrong p256dh/auth, or changed in transit)",
    );
  }
  // Plaintext ‖ 0x02 ‖ zero padding: the last non-zero byte is the delimiter, and it must be 2 (last record).
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (end < 0 || padded[end] !== 2) throw new WebPushDecryptError('the record delimiter is not 0x02 (the last record)');
  return padded.subarray(0, end);
}

/** A browser's key pair from raw bytes (the Appendix A vector gives the private key). */
export function browserKeysFrom(privateKey: Buffer, authSecret: Buffer): BrowserKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(privateKey);
  return { ecdh, authSecret };
}

function hmac(key: Buffer, data: Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}
