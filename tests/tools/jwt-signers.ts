import { SignJWT, importPKCS8 } from 'jose';
import type { ApnsSigningKey, FcmServiceAccount } from '../../tools/fakes/index.ts';

/** Client-side token signing as the real providers expect it, so the tests exercise the fakes' verification. */

/** APNs provider token: ES256, header kid, claims iss and iat (docs/protocols.md 1.2). */
export async function apnsProviderToken(
  key: ApnsSigningKey,
  claims: { iat?: number; iss?: string; kid?: string } = {},
): Promise<string> {
  const privateKey = await importPKCS8(key.privateKeyPem, 'ES256');
  return new SignJWT({ iss: claims.iss ?? key.teamId, iat: claims.iat ?? Math.floor(Date.now() / 1000) })
    .setProtectedHeader({ alg: 'ES256', kid: claims.kid ?? key.keyId })
    .sign(privateKey);
}

/** FCM OAuth assertion: RS256, iss = client_email, aud = token_uri, scope, iat, exp ≤ iat + 3600 (docs/protocols.md 3.1). */
export async function fcmAssertion(
  account: FcmServiceAccount,
  claims: { iat?: number; exp?: number; aud?: string; scope?: string; iss?: string } = {},
): Promise<string> {
  const privateKey = await importPKCS8(account.json.private_key, 'RS256');
  const iat = claims.iat ?? Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: claims.iss ?? account.json.client_email,
    scope: claims.scope ?? 'https://www.googleapis.com/auth/firebase.messaging',
    aud: claims.aud ?? account.json.token_uri,
    iat,
    exp: claims.exp ?? iat + 3600,
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: account.json.private_key_id })
    .sign(privateKey);
}
