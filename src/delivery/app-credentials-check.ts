import type { Config } from '../config/load-config.ts';
import type { Clock } from '../domain/clock.ts';
import type { App } from '../store/apps-store.ts';
import { createApnsClient } from './apns/apns-client.ts';
import { openAppCredentials } from './app-credentials.ts';
import type { DeliveryOutcome } from './delivery-outcome.ts';
import { createFcmClient } from './fcm/fcm-client.ts';
import { uploadedTokenUriPolicy } from './fcm/fcm-token-uri.ts';
import type { PushContent } from './push-content.ts';

/**
 * "Test credentials" (POST /apps/{id}/test, the dashboard's button): each platform's credentials are shown to its
 * provider with a push to a device token that cannot exist, so nothing reaches a device. A provider that accepts the
 * credentials goes on to refuse the token (APNs 400 BadDeviceToken; FCM INVALID_ARGUMENT or UNREGISTERED): that means
 * the key, team, topic or service account are good. A refusal of the credentials comes back with the provider's reason
 * and what to change. Web Push has no provider to ask before a browser subscribes; the key pair was checked on upload.
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
  title: 'Credentials check',
  body: null,
  url: null,
  data: null,
  imageUrl: null,
  iconUrl: null,
  sound: null,
  badge: null,
  priority: 'normal',
  ttlSeconds: 0,
};

export async function checkAppCredentials(input: { app: App; secretKey: Buffer; config: Config; clock: Clock }): Promise<AppCredentialsCheck> {
  const { app, config, clock } = input;
  const credentials = openAppCredentials(input.secretKey, app);
  const [ios, android] = await Promise.all([
    credentials.apns
      ? (async () => {
          const client = createApnsClient({ url: config.apnsUrl, ...credentials.apns!, clock, requestTimeoutMs: 10_000 });
          try {
            return judge(await client.send(IMPOSSIBLE_APNS_TOKEN, probe), 'APNs accepted the key, Team ID and bundle id.');
          } finally {
            await client.close();
          }
        })()
      : null,
    credentials.fcm
      ? (async () => {
          try {
            const client = createFcmClient({ url: config.fcmUrl, serviceAccount: credentials.fcm!.serviceAccount, tokenUri: uploadedTokenUriPolicy(config), clock, requestTimeoutMs: 10_000 });
            try {
              return judge(await client.send(IMPOSSIBLE_FCM_TOKEN, probe), 'FCM issued an access token for the service account and accepted it for this project.');
            } finally {
              await client.close();
            }
          } catch (error) {
            return { ok: false, providerAnswer: 'fcm:error', message: (error as Error).message };
          }
        })()
      : null,
  ]);
  return { ios, android, web: { ok: true, providerAnswer: 'none', message: 'The VAPID key pair is valid; push services check the signature on the first push to a subscribed browser.' } };
}

function judge(outcome: DeliveryOutcome, good: string): PlatformCheck {
  switch (outcome.kind) {
    case 'delivered':
      return { ok: true, providerAnswer: 'delivered', message: good };
    case 'token_dead':
      return { ok: true, providerAnswer: outcome.providerReason, message: good };
    case 'fatal':
      return { ok: false, providerAnswer: outcome.reason, message: outcome.fix };
    case 'retry':
      return { ok: false, providerAnswer: outcome.reason, message: 'The provider could not be reached or is busy; try again in a minute.' };
    case 'rejected':
      // The made-up token refused as a malformed request: the credentials themselves were accepted.
      return { ok: true, providerAnswer: outcome.reason, message: good };
  }
}
