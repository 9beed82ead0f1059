import { type KeyObject, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Reading and checking provider credentials once, when a client is created, so a wrong file fails start-up with a
 * message that names the CLARION_* variable instead of failing every push later.
 */

/** Thrown for unusable credentials; the message names the variable to fix. */
export class ProviderCredentialsError extends Error {
  override name = 'ProviderCredentialsError';
}

/**
 * The APNs token-auth key: Apple's .p8 download is a PKCS#8 PEM holding a P-256 key (docs/protocols.md 1.2). Returns a
 * KeyObject, which jose signs with directly (no async import on the send path).
 */
export function parseApnsSigningKey(pem: string, source = 'CLARION_APNS_KEY_FILE'): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch (error) {
    throw new ProviderCredentialsError(
      `${source}: not a PEM private key (expected the .p8 file from Apple: "-----BEGIN PRIVATE KEY-----"): ${(error as Error).message}`,
    );
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new ProviderCredentialsError(
      `${source}: APNs keys are P-256 EC keys (ES256), this one is ${describeKey(key)}`,
    );
  }
  return key;
}

export function readApnsSigningKey(path: string): KeyObject {
  return parseApnsSigningKey(readCredentialFile(path, 'CLARION_APNS_KEY_FILE'), `CLARION_APNS_KEY_FILE (${path})`);
}

/** The fields of a Google service-account JSON that the FCM client uses (docs/protocols.md 3.1). */
export interface FcmServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

export interface ParsedFcmServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKeyId: string | undefined;
  tokenUri: string;
  /** RSA key for the RS256 assertion. */
  privateKey: KeyObject;
}

export function parseFcmServiceAccount(
  json: unknown,
  source = 'CLARION_FCM_SERVICE_ACCOUNT_FILE',
): ParsedFcmServiceAccount {
  if (typeof json !== 'object' || json === null)
    throw new ProviderCredentialsError(`${source}: not a service-account JSON object`);
  const account = json as Record<string, unknown>;
  const field = (name: keyof FcmServiceAccount): string => {
    const value = account[name];
    if (typeof value !== 'string' || value === '') {
      throw new ProviderCredentialsError(
        `${source}: "${name}" is missing; download the key again (Firebase console → Project settings → Service accounts → Generate new private key)`,
      );
    }
    return value;
  };
  const tokenUri = field('token_uri');
  try {
    new URL(tokenUri);
  } catch {
    throw new ProviderCredentialsError(`${source}: "token_uri" is not a URL (got "${tokenUri}")`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: field('private_key'), format: 'pem' });
  } catch (error) {
    throw new ProviderCredentialsError(
      `${source}: "private_key" is not a PEM private key: ${(error as Error).message}`,
    );
  }
  if (privateKey.asymmetricKeyType !== 'rsa') {
    throw new ProviderCredentialsError(
      `${source}: "private_key" must be an RSA key (RS256), this one is ${describeKey(privateKey)}`,
    );
  }
  const keyId = account.private_key_id;
  return {
    projectId: field('project_id'),
    clientEmail: field('client_email'),
    privateKeyId: typeof keyId === 'string' && keyId !== '' ? keyId : undefined,
    tokenUri,
    privateKey,
  };
}

export function readFcmServiceAccount(path: string): ParsedFcmServiceAccount {
  const source = `CLARION_FCM_SERVICE_ACCOUNT_FILE (${path})`;
  let json: unknown;
  try {
    json = JSON.parse(readCredentialFile(path, 'CLARION_FCM_SERVICE_ACCOUNT_FILE'));
  } catch (error) {
    if (error instanceof ProviderCredentialsError) throw error;
    throw new ProviderCredentialsError(`${source}: not valid JSON: ${(error as Error).message}`);
  }
  return parseFcmServiceAccount(json, source);
}

function readCredentialFile(path: string, variable: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ProviderCredentialsError(
      `${variable}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function describeKey(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return `${key.asymmetricKeyType ?? 'unknown'}${curve ? ` (${curve})` : ''}`;
}
