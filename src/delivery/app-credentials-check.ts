import type { App } from '../store/apps-queries.ts';
import { isKeyOfOtherEnvironment } from './apns/apns-environment-sender.ts';
import type { DeliveryOutcome } from './delivery-outcome.ts';
import { contentAsStored } from '../domain/notification-content.ts';
import type { PushContent } from './push-content.ts';
import type { ProviderClientRegistry } from './provider-client-registry.ts';

/**
 * "Test credentials" (POST /apps/{id}/test, the dashboard's button): each platform's credentials are shown to its
 * provider with a push to a device token that cannot exist, so nothing reaches a device. A provider that accepts the
 * credentials goes on to refuse the token (APNs 400 BadDeviceToken; FCM INVALID_ARGUMENT or UNREGISTERED): that means
 * the key, team, topic or service account are good. A refusal of the credentials comes back with the provider's reason
 * and what to change. Web Push has no provider to ask before a browser subscribes; the key pair was checked on upload.
 *
 * The pushes go through the app's pooled clients (provider-client-registry.ts): a second check reuses the connection,
 * and the APNs key's provider token is the one the process already uses, so checking never renews it early
 * (docs/protocols.md 1.2). A key limited to the sandbox (BadEnvironmentKeyIdInToken at production) is checked there.
 */
export interface PlatformCheck {
  ok: boolean;
  /** What the provider said, e.g. apns:BadDeviceToken (expected) or apns:InvalidProviderToken. */
  providerAnswer: string;
  message: string;
}

export interface AppCredentialsCheck {
  ios: PlatformCheck | null;
  android: PlatformCheck | null;
  web: PlatformCheck;
}

/** 64 zero hex digits: a well-formed APNs token no device has. */
const IMPOSSIBLE_APNS_TOKEN = '0'.repeat(64);
const IMPOSSIBLE_FCM_TOKEN = 'clarion-credentials-check';

const probe: PushContent = {
  notificationId: 'clarion-credentials-check',
  ...contentAsStored({ title: 'Credentials check', priority: 'normal', ttlSeconds: 0 }),
};

export async function checkAppCredentials(input: {
  app: App;
  clients: Pick<ProviderClientRegistry, 'apnsClient' | 'fcmClient'>;
}): Promise<AppCredentialsCheck> {
  const { app, clients } = input;
  const [ios, android] = await Promise.all([
    app.apns_sealed_key ? checkApns(app, clients) : null,
    app.fcm_sealed_service_account ? checkFcm(app, clients) : null,
  ]);
  return {
    ios,
    android,
    web: {
      ok: true,
      providerAnswer: 'none',
      message:
        'The VAPID key pair is valid; push services check the signature on the first push to a subscribed browser.',
    },
  };
}

async function checkApns(app: App, clients: Pick<ProviderClientRegistry, 'apnsClient'>): Promise<PlatformCheck> {
  const production = await clients.apnsClient(app, 'production')!.send(IMPOSSIBLE_APNS_TOKEN, probe);
  if (!isKeyOfOtherEnvironment(production))
    return judge(production, 'APNs accepted the key, Team ID and bundle id.', UPLOAD_FIX.ios);
  const sandbox = await clients.apnsClient(app, 'sandbox')!.send(IMPOSSIBLE_APNS_TOKEN, probe);
  return judge(
    sandbox,
    'APNs accepted the key, Team ID and bundle id in the sandbox: the key is limited to the sandbox, so it reaches development builds only.',
    UPLOAD_FIX.ios,
  );
}

async function checkFcm(app: App, clients: Pick<ProviderClientRegistry, 'fcmClient'>): Promise<PlatformCheck> {
  try {
    return judge(
      await clients.fcmClient(app)!.send(IMPOSSIBLE_FCM_TOKEN, probe),
      'FCM issued an access token for the service account and accepted it for this project.',
      UPLOAD_FIX.android,
    );
  } catch (error) {
    return { ok: false, providerAnswer: 'fcm:error', message: (error as Error).message };
  }
}

/**
 * What to do about a refusal of an app's credentials. The clients' own `fix` names the operator's CLARION_APNS_* and
 * CLARION_FCM_* variables, which are the built-in app's; an app's credentials are its uploads.
 */
const UPLOAD_FIX = {
  ios: "Upload the .p8 key again with its own 10-character Key ID, the Team ID of the Apple developer account that created it and the app's exact bundle id (Apps page, PATCH /api/v1/apps/{id} or clarion apps update).",
  android:
    "Upload a current key file of an enabled service account of the app's Firebase project (Firebase console → Project settings → Service accounts → Generate new private key).",
};

function judge(outcome: DeliveryOutcome, good: string, uploadFix: string): PlatformCheck {
  switch (outcome.kind) {
    case 'delivered':
      return { ok: true, providerAnswer: 'delivered', message: good };
    case 'token_dead':
      return { ok: true, providerAnswer: outcome.providerReason, message: good };
    case 'fatal':
      return {
        ok: false,
        providerAnswer: outcome.reason,
        // A refused token_uri is judged before any request, and its fix already speaks of the upload.
        message:
          outcome.reason === 'fcm:token_uri_refused'
            ? outcome.fix
            : `The provider refused the credentials. ${uploadFix}`,
      };
    case 'retry':
      return {
        ok: false,
        providerAnswer: outcome.reason,
        message: 'The provider could not be reached or is busy; try again in a minute.',
      };
    case 'rejected':
      // The made-up token refused as a malformed request: the credentials themselves were accepted.
      return { ok: true, providerAnswer: outcome.reason, message: good };
  }
}
