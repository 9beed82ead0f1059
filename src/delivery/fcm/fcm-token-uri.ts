import { allowsPrivateAddresses } from '../../net/outbound-url-guard.ts';

/**
 * Where the OAuth token request of a service account may go. Clarion posts a signed assertion to the key file's
 * `token_uri` (fcm-access-token.ts), so a service account uploaded by an account (POST/PATCH /api/v1/apps,
 * `clarion apps create|update`) would otherwise make the server send a request to any URL a tenant writes there:
 * loopback, the cloud metadata service, an internal port, over plain http. Google documents one token endpoint,
 * https://oauth2.googleapis.com/token (https://developers.google.com/identity/protocols/oauth2/service-account#httprest),
 * and it is the `token_uri` of the key files the Firebase and Cloud consoles issue (the key file format, with its
 * `token_uri`: https://google.aip.dev/auth/4112). Older key files may name
 * https://accounts.google.com/o/oauth2/token: such an upload is refused, and a new key from the console has the current
 * endpoint.
 *
 * - `google`: only that endpoint. Used for accounts' uploads unless the operator set CLARION_ALLOW_PRIVATE_ADDRESSES.
 * - `https`: any https URL (the fakes on loopback, an on-premises stand-in): accounts' uploads when the operator set
 *   CLARION_ALLOW_PRIVATE_ADDRESSES. Plain http stays refused: the assertion it carries is good for an access token
 *   for an hour.
 * - `any`: the operator's own CLARION_FCM_SERVICE_ACCOUNT_FILE, trusted as the operator wrote it.
 */
export type TokenUriPolicy = 'google' | 'https' | 'any';

export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** The policy for service accounts that accounts upload, by CLARION_ALLOW_PRIVATE_ADDRESSES. */
export function uploadedTokenUriPolicy(config: {
  allowPrivateAddresses: boolean;
  allowPrivateWebhooks: boolean;
}): TokenUriPolicy {
  return allowsPrivateAddresses(config) ? 'https' : 'google';
}

/** Why `tokenUri` may not be used under `policy` (the end of a sentence about "token_uri"), or null when it may. */
export function tokenUriRefusal(tokenUri: string, policy: TokenUriPolicy): string | null {
  if (policy === 'any') return null;
  let url: URL;
  try {
    url = new URL(tokenUri);
  } catch {
    return `"token_uri" is not a URL`;
  }
  // Compared after URL parsing, so only spellings of exactly that URL pass (no user info, port, query or other path).
  if (policy === 'google' && url.href !== GOOGLE_TOKEN_URI) {
    return `"token_uri" must be Google's token endpoint ${GOOGLE_TOKEN_URI}, as in the key file the Firebase console downloads; this file names another URL`;
  }
  if (url.protocol !== 'https:') return `"token_uri" must be an https URL`;
  return null;
}
