import { createECDH } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConfigError, type Config } from '../../config/load-config.ts';
import { openSecret, sealSecret } from '../../domain/secret-box.ts';
import type { Database, VapidKeysTable } from '../../store/schema.ts';
import { insertVapidKeysIfAbsent, readVapidKeys, replaceVapidKeys } from '../../store/vapid-keys-queries.ts';
import { vapidSubject } from './vapid-subject.ts';

/**
 * The instance's VAPID key pair (RFC 8292, https://www.rfc-editor.org/rfc/rfc8292): browsers subscribe with the public
 * key (`applicationServerKey`), and every push is signed with the private key. A browser subscription is bound to the
 * public key it was made with, so the pair must stay the same for the life of the subscriptions: it is generated once,
 * on first start, and stored in the database (shared by every Clarion process on it), the private key sealed with the
 * instance secret key like the other secrets. An operator may give the pair in configuration instead
 * (CLARION_VAPID_PUBLIC_KEY / CLARION_VAPID_PRIVATE_KEY). Changing it is `clarion web-push rotate-keys`.
 */
export interface VapidKeys {
  /** base64url, the uncompressed P-256 point: 65 bytes, 87 characters. */
  publicKey: string;
  /** base64url, the 32-byte private scalar. */
  privateKey: string;
  /** The JWT `sub`: a mailto: or https: contact for the push services (vapid-subject.ts). */
  subject: string;
  /** Where the pair came from, for the start-up log. */
  source: 'config' | 'database' | 'generated';
}

/** The sealed private key is bound to this context (secret-box.ts), so it opens only as a VAPID key. */
const SEAL_CONTEXT = 'vapid_keys';

type VapidConfig = Pick<Config, 'vapidPublicKey' | 'vapidPrivateKey' | 'vapidSubject' | 'baseUrl'>;

/** The configured pair, else the stored one, else a new pair stored now (the first start). */
export async function resolveVapidKeys(
  db: Kysely<Database>,
  secretKey: Buffer,
  config: VapidConfig,
  now: number,
): Promise<VapidKeys> {
  const subject = vapidSubject(config);
  if (config.vapidPublicKey || config.vapidPrivateKey) return { ...configuredPair(config), subject, source: 'config' };
  const { row, generated } = await storedPair(db, secretKey, now);
  return {
    publicKey: row.public_key,
    privateKey: openSecret(secretKey, row.sealed_private_key, SEAL_CONTEXT),
    subject,
    source: generated ? 'generated' : 'database',
  };
}

/**
 * The public key alone, for GET /api/v1/web-push/public-key: read without opening the sealed private key, so the API
 * never handles it (and answers even where this process's secret key could not open it).
 */
export async function resolveVapidPublicKey(
  db: Kysely<Database>,
  secretKey: Buffer,
  config: VapidConfig,
  now: number,
): Promise<string> {
  if (config.vapidPublicKey || config.vapidPrivateKey) return configuredPair(config).publicKey;
  return (await storedPair(db, secretKey, now)).row.public_key;
}

async function storedPair(
  db: Kysely<Database>,
  secretKey: Buffer,
  now: number,
): Promise<{ row: VapidKeysTable; generated: boolean }> {
  const stored = await readVapidKeys(db);
  if (stored) return { row: stored, generated: false };
  const fresh = generateVapidKeyPair();
  // Another process may have stored its pair first: the stored one is used, whoever made it.
  const row = await insertVapidKeysIfAbsent(db, {
    publicKey: fresh.publicKey,
    sealedPrivateKey: sealSecret(secretKey, fresh.privateKey, SEAL_CONTEXT),
    now,
  });
  return { row, generated: row.public_key === fresh.publicKey };
}

/** Replaces the stored pair with a new one and returns its public key. Existing browser subscriptions stop working. */
export async function rotateVapidKeys(db: Kysely<Database>, secretKey: Buffer, now: number): Promise<string> {
  const fresh = generateVapidKeyPair();
  await replaceVapidKeys(db, {
    publicKey: fresh.publicKey,
    sealedPrivateKey: sealSecret(secretKey, fresh.privateKey, SEAL_CONTEXT),
    now,
  });
  return fresh.publicKey;
}

export function generateVapidKeyPair(): { publicKey: string; privateKey: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  // getPrivateKey() drops leading zero bytes (one key in 256 comes out 31 bytes): the key is 32 bytes, as
  // `web-push generate-vapid-keys` writes it and as CLARION_VAPID_PRIVATE_KEY must be.
  const privateKey = ecdh.getPrivateKey();
  return {
    publicKey: ecdh.getPublicKey().toString('base64url'),
    privateKey: Buffer.concat([Buffer.alloc(32 - privateKey.length), privateKey]).toString('base64url'),
  };
}

/** The public key (base64url, 65 bytes) of a base64url 32-byte P-256 private key; null when it is not one. */
export function vapidPublicKeyOf(privateKey: string): string | null {
  const privateBytes = Buffer.from(privateKey, 'base64url');
  if (privateBytes.length !== 32) return null;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(privateBytes);
    return ecdh.getPublicKey().toString('base64url');
  } catch {
    return null;
  }
}

function configuredPair(config: VapidConfig): { publicKey: string; privateKey: string } {
  const { vapidPublicKey: publicKey, vapidPrivateKey: privateKey } = config;
  if (!publicKey || !privateKey)
    throw new ConfigError(
      'CLARION_VAPID_PUBLIC_KEY and CLARION_VAPID_PRIVATE_KEY go together: set both, or neither to let Clarion generate a pair',
    );
  const privateBytes = Buffer.from(privateKey, 'base64url');
  if (privateBytes.length !== 32)
    throw new ConfigError(
      'CLARION_VAPID_PRIVATE_KEY: must be 32 bytes, base64url (as `npx web-push generate-vapid-keys` prints)',
    );
  const derived = vapidPublicKeyOf(privateKey);
  if (derived === null) throw new ConfigError('CLARION_VAPID_PRIVATE_KEY: not a valid P-256 private key');
  if (derived !== publicKey.replace(/=+$/, ''))
    throw new ConfigError('CLARION_VAPID_PUBLIC_KEY: does not belong to CLARION_VAPID_PRIVATE_KEY');
  return { publicKey: derived, privateKey: privateBytes.toString('base64url') };
}
