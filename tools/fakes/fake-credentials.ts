import { type KeyObject, generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Credentials shaped exactly like the real ones, for pointing Clarion at the fakes through its normal configuration
 * (CLARION_APNS_KEY_FILE/KEY_ID/TEAM_ID and CLARION_FCM_SERVICE_ACCOUNT_FILE).
 */

/** An APNs token-auth key as Apple hands it out: a P-256 key in a PKCS#8 .p8 file, with 10-character ids. */
export interface ApnsSigningKey {
  /** JWT header `kid` (docs/protocols.md 1.2). */
  keyId: string;
  /** JWT claim `iss` (docs/protocols.md 1.2). */
  teamId: string;
  /** Contents of the .p8 file: "-----BEGIN PRIVATE KEY-----" PKCS#8, like Apple's download. */
  privateKeyPem: string;
  publicKey: KeyObject;
}

export function createApnsSigningKey(options: { keyId?: string; teamId?: string } = {}): ApnsSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    keyId: options.keyId ?? appleId(),
    teamId: options.teamId ?? appleId(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey,
  };
}

/** The JSON file Google Cloud issues for a service account ("Generate new private key" in the Firebase console). */
export interface ServiceAccountJson {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
}

export interface FcmServiceAccount {
  json: ServiceAccountJson;
  publicKey: KeyObject;
}

export function createFcmServiceAccount(options: {
  projectId: string;
  tokenUri: string;
  clientEmail?: string;
}): FcmServiceAccount {
  // RSA 2048 like Google's keys; the OAuth assertion is RS256 (docs/protocols.md 3.1).
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail =
    options.clientEmail ??
    `firebase-adminsdk-${randomBytes(3).toString('hex').slice(0, 5)}@${options.projectId}.iam.gserviceaccount.com`;
  return {
    json: {
      type: 'service_account',
      project_id: options.projectId,
      private_key_id: randomBytes(20).toString('hex'),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: clientEmail,
      client_id: Array.from({ length: 21 }, (_, i) => randomInt(i === 0 ? 1 : 0, 10)).join(''),
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: options.tokenUri,
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
      universe_domain: 'googleapis.com',
    },
    publicKey,
  };
}

/**
 * Writes a credential where Clarion's *_FILE variables can point: an APNs key as its .p8 PEM, a service account as
 * its JSON. Owner-only permissions, like a real secret. Returns the path.
 */
export function writeCredentialFile(path: string, credential: ApnsSigningKey | FcmServiceAccount): string {
  mkdirSync(dirname(path), { recursive: true });
  const content =
    'privateKeyPem' in credential ? credential.privateKeyPem : `${JSON.stringify(credential.json, null, 2)}\n`;
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

/** Apple's Key IDs and Team IDs are 10 characters of upper-case letters and digits. */
function appleId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from({ length: 10 }, () => alphabet[randomInt(alphabet.length)]).join('');
}
