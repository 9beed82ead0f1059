/**
 * Outcome reasons that say an app's credentials are wrong, not its devices or the network (docs/apps.md, "When a
 * provider refuses the credentials"): the app is marked failing and the account gets `app.credentials_failed`. Pure.
 * - APNs: a revoked, foreign or wrong-environment key, or a bundle id the key may not push to
 *   (apns/apns-response.ts; Apple's table in docs/protocols.md 1.5).
 * - FCM: APNs/Web Push auth configured in the Firebase project is refused (THIRD_PARTY_AUTH_ERROR, APNS_AUTH_ERROR), or
 *   the service account itself is refused (401 UNAUTHENTICATED after a fresh token, 403 PERMISSION_DENIED), or its
 *   token_uri is not one Clarion sends a token request to (fcm/fcm-token-uri.ts).
 * - Web Push: a push service refused the VAPID signature (401/403) for every browser of a batch it holds, which the
 *   misconfiguration guard calls our configuration (send-batch.ts): the app's VAPID keys or subject.
 */
const CREDENTIAL_REASONS = new Set([
  'apns:InvalidProviderToken',
  'apns:TopicDisallowed',
  'apns:Forbidden',
  'apns:BadEnvironmentKeyIdInToken',
  'apns:BadEnvironmentKeyInToken',
  'apns:HTTP403',
  'fcm:THIRD_PARTY_AUTH_ERROR',
  'fcm:APNS_AUTH_ERROR',
  'fcm:UNAUTHENTICATED',
  'fcm:PERMISSION_DENIED',
  'fcm:HTTP401',
  'fcm:HTTP403',
  'fcm:token_uri_refused',
]);

const WEB_PUSH_VAPID_REFUSED = /^provider_configuration:web-push:40[13](:|$)/;

export function isCredentialFailure(reason: string): boolean {
  return CREDENTIAL_REASONS.has(reason) || WEB_PUSH_VAPID_REFUSED.test(reason);
}
