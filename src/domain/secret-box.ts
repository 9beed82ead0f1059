import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (webhook signing secrets; later provider credentials): AES-256-GCM under the instance key from
 * `resolveSecretKey` (src/config/secret-key.ts). A sealed value is text, `v1:<base64url(iv | tag | ciphertext)>`:
 * the version prefix lets a later format (another cipher, a rotated instance key) be told apart and migrated.
 *
 * - 12-byte random IV: the size GCM is specified for (NIST SP 800-38D 8.2); random IVs under one key stay safe for
 *   about 2^32 encryptions, far more than a Clarion instance stores secrets.
 * - 16-byte tag: the full GCM tag, so a changed or truncated value is refused instead of decrypting to garbage.
 * - `context` is bound as additional authenticated data (e.g. the webhook id), so a sealed value copied onto
 *   another row does not open there.
 */
const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export function sealSecret(key: Buffer, plaintext: string, context = ''): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
}

/** Decrypts a value from `sealSecret`; throws SecretBoxError for another version, a wrong key or context, or tampering. */
export function openSecret(key: Buffer, sealed: string, context = ''): string {
  assertKey(key);
  const separator = sealed.indexOf(':');
  const version = separator === -1 ? '' : sealed.slice(0, separator);
  if (version !== VERSION) throw new SecretBoxError(`unknown sealed-secret format "${version || sealed.slice(0, 8)}"`);
  const raw = Buffer.from(sealed.slice(separator + 1), 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('sealed secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    // GCM says only "unable to authenticate": the key (CLARION_SECRET_KEY) or the context differ, or the value changed.
    throw new SecretBoxError('sealed secret does not open with this key: was CLARION_SECRET_KEY changed?');
  }
}

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES)
    throw new SecretBoxError(`the secret key must be ${KEY_BYTES} bytes (got ${key.length})`);
}
