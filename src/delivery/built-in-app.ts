import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config/load-config.ts';
import type { Clock } from '../domain/clock.ts';
import type { Platform } from '../domain/device-token.ts';
import { createApnsProviderTokens, type ApnsProviderTokens } from './apns/apns-provider-token.ts';
import { sendersOf, type AppKeys, type ClientCache, type ProviderClient } from './app-senders.ts';
import { ProviderCredentialsError, readApnsSigningKey, readFcmServiceAccount } from './provider-credentials.ts';
import type { PushProviders } from './push-sender.ts';
import type { VapidKeys } from './web-push/vapid-keys.ts';

const APNS_VARIABLES = [
  'CLARION_APNS_KEY_FILE',
  'CLARION_APNS_KEY_ID',
  'CLARION_APNS_TEAM_ID',
  'CLARION_APNS_TOPIC',
] as const;

/**
 * The built-in app: what a channel without an app of its own delivers with (docs/apps.md), synthesised from the
 * configuration (CLARION_APNS_*, CLARION_FCM_SERVICE_ACCOUNT_FILE) and the instance's VAPID keys. A platform left out
 * fails its pushes loudly (`apns_not_configured`, …) rather than dropping them, with a warning at start. Half-given
 * APNs credentials, an unreadable key file or service account stop start-up with a message naming the variable.
 */
export function builtInApp(config: Config, logger: Logger, vapidKeys: VapidKeys | null): AppKeys {
  return { ios: builtInIos(config, logger), android: builtInAndroid(config, logger), web: builtInWeb(vapidKeys) };
}

function builtInIos(config: Config, logger: Logger): AppKeys['ios'] {
  const values = [config.apnsKeyFile, config.apnsKeyId, config.apnsTeamId, config.apnsTopic];
  const given = values.filter((value) => value !== undefined && value !== '').length;
  if (given === 0) {
    logger.warn('APNs is not configured: iOS pushes will fail with apns_not_configured');
    return { reason: 'apns_not_configured', fix: `set ${APNS_VARIABLES.join(', ')} to deliver to iOS` };
  }
  if (given < values.length) {
    const missing = APNS_VARIABLES.filter((_, index) => !values[index]);
    throw new ConfigError(`APNs needs all of ${APNS_VARIABLES.join(', ')}; missing ${missing.join(', ')}`);
  }
  const keys = {
    keyFile: config.apnsKeyFile!,
    keyId: config.apnsKeyId!,
    teamId: config.apnsTeamId!,
    topic: config.apnsTopic!,
  };
  // Read now, so that a bad key file stops start-up; the clients read it again when they are made.
  withCredentialErrors(() => readApnsSigningKey(keys.keyFile));
  return { topic: keys.topic, open: () => keys };
}

function builtInAndroid(config: Config, logger: Logger): AppKeys['android'] {
  const file = config.fcmServiceAccountFile;
  if (!file) {
    logger.warn('FCM is not configured: Android pushes will fail with fcm_not_configured');
    return { reason: 'fcm_not_configured', fix: 'set CLARION_FCM_SERVICE_ACCOUNT_FILE to deliver to Android' };
  }
  withCredentialErrors(() => readFcmServiceAccount(file));
  // The operator's own file: its token_uri is trusted as given (fcm/fcm-token-uri.ts).
  return { open: () => ({ serviceAccountFile: file }) };
}

/**
 * Web Push signs with the instance's VAPID keys (web-push/vapid-keys.ts), which the server resolves at start. Without
 * them (the stored private key did not open, or a caller built the providers without), web pushes fail loudly.
 */
function builtInWeb(vapidKeys: VapidKeys | null): AppKeys['web'] {
  if (!vapidKeys)
    return {
      reason: 'web_push_not_configured',
      fix: 'the worker has no VAPID keys: see its start-up log (every process on one database needs the same CLARION_SECRET_KEY, or set CLARION_VAPID_PUBLIC_KEY / CLARION_VAPID_PRIVATE_KEY)',
    };
  return { open: () => vapidKeys };
}

/**
 * The built-in app's senders (app-senders.ts, as for every account's app), with clients of their own kept for the
 * worker's life: each platform's sender closes its own, and reports its HTTP/2 pool's counters (`stats`, read when
 * metrics are scraped). `providerTokens`: the process's APNs provider tokens, one per key, shared with the apps'.
 */
export function createPushProviders(
  config: Config,
  clock: Clock,
  logger: Logger,
  vapidKeys: VapidKeys | null = null,
  providerTokens: ApnsProviderTokens = createApnsProviderTokens(clock),
): PushProviders {
  const app = builtInApp(config, logger, vapidKeys);
  const kept = new Map<string, ProviderClient>();
  const clients: ClientCache = {
    use: (part, create) => {
      let client = kept.get(part);
      if (!client) kept.set(part, (client = create()));
      return client as ReturnType<typeof create>;
    },
  };
  const senders = sendersOf(app, clients, { config, clock, logger, providerTokens });
  const partsOf = (platform: Platform) =>
    [...kept.entries()].filter(
      ([part]) => part === platform || part.startsWith(`${platform}:`) || part.startsWith(`${platform}-`),
    );
  const close = async (platform: Platform) => {
    const parts = partsOf(platform);
    for (const [part] of parts) kept.delete(part);
    await Promise.all(parts.map(([, entry]) => entry.client.close()));
  };
  const stats = (platform: Platform) => {
    const total = { sessions: 0, activeStreams: 0, queued: 0 };
    for (const [, entry] of partsOf(platform)) {
      if (entry.kind !== 'apns' && entry.kind !== 'fcm') continue;
      const part = entry.client.stats();
      total.sessions += part.sessions;
      total.activeStreams += part.activeStreams;
      total.queued += part.queued;
    }
    return total;
  };
  return {
    ios: { ...senders.ios, stats: () => stats('ios'), close: () => close('ios') },
    android: { ...senders.android, stats: () => stats('android'), close: () => close('android') },
    web: { ...senders.web, close: () => close('web') },
  };
}

function withCredentialErrors<T>(create: () => T): T {
  try {
    return create();
  } catch (error) {
    if (error instanceof ProviderCredentialsError) throw new ConfigError(error.message);
    throw error;
  }
}
