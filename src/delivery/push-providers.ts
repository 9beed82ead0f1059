import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config/load-config.ts';
import type { Clock } from '../domain/clock.ts';
import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import { createApnsClient, type ApnsClient } from './apns/apns-client.ts';
import { sendLiveActivityToApnsEnvironment, sendToApnsEnvironment } from './apns/apns-environment-sender.ts';
import { apnsEnvironmentOf, createApnsBroadcastConnection } from './apns/apns-broadcast.ts';
import { createApnsProviderTokens, type ApnsProviderTokens } from './apns/apns-provider-token.ts';
import { createFcmClient } from './fcm/fcm-client.ts';
import { sendFcmLiveActivity, sendWebLiveActivity } from './live-activities/live-activity-senders.ts';
import { ProviderCredentialsError } from './provider-credentials.ts';
import { unconfiguredSender, type PushProviders, type PushSender } from './push-sender.ts';
import type { VapidKeys } from './web-push/vapid-keys.ts';
import { createWebPushClient } from './web-push/web-push-client.ts';
import { allowsPrivateAddresses } from '../net/outbound-url-guard.ts';

const APNS_VARIABLES = [
  'CLARION_APNS_KEY_FILE',
  'CLARION_APNS_KEY_ID',
  'CLARION_APNS_TEAM_ID',
  'CLARION_APNS_TOPIC',
] as const;

/**
 * The provider clients for the worker, from the configuration. A platform without credentials gets a sender that
 * fails its batches loudly (`apns_not_configured`, …) rather than dropping pushes. Half-given APNs credentials or an
 * unreadable key file stop start-up with a message naming the variable. `providerTokens`: the process's APNs provider
 * tokens, one per key, which the production, sandbox and broadcast clients share with the apps' (docs/protocols.md 1.2).
 */
export function createPushProviders(
  config: Config,
  clock: Clock,
  logger: Logger,
  vapidKeys: VapidKeys | null = null,
  providerTokens: ApnsProviderTokens = createApnsProviderTokens(clock),
): PushProviders {
  return {
    ios: apnsSender(config, clock, logger, providerTokens),
    android: fcmSender(config, clock, logger),
    web: webSender(config, clock, logger, vapidKeys),
  };
}

function apnsSender(config: Config, clock: Clock, logger: Logger, providerTokens: ApnsProviderTokens): PushSender {
  const values = [config.apnsKeyFile, config.apnsKeyId, config.apnsTeamId, config.apnsTopic];
  const given = values.filter((value) => value !== undefined && value !== '').length;
  if (given === 0) {
    logger.warn('APNs is not configured: iOS pushes will fail with apns_not_configured');
    return unconfiguredSender('apns_not_configured', `set ${APNS_VARIABLES.join(', ')} to deliver to iOS`);
  }
  if (given < values.length) {
    const missing = APNS_VARIABLES.filter((_, index) => !values[index]);
    throw new ConfigError(`APNs needs all of ${APNS_VARIABLES.join(', ')}; missing ${missing.join(', ')}`);
  }
  const options = {
    keyFile: config.apnsKeyFile!,
    keyId: config.apnsKeyId!,
    teamId: config.apnsTeamId!,
    topic: config.apnsTopic!,
    clock,
    providerTokens,
    logger,
  };
  // Production at start, so a bad key file stops start-up; the sandbox client on its first push (apns-environment-sender.ts).
  const production = withCredentialErrors(() => createApnsClient({ ...options, url: config.apnsUrl }));
  let sandbox: ApnsClient | null = null;
  const clientFor = (environment: ApnsEnvironment): ApnsClient =>
    environment === 'production'
      ? production
      : (sandbox ??= createApnsClient({ ...options, url: config.apnsSandboxUrl }));
  // Broadcast channels live in the push host's environment: the sandbox management host for the sandbox.
  const environment = apnsEnvironmentOf(config.apnsUrl);
  const broadcast = withCredentialErrors(() =>
    createApnsBroadcastConnection({
      pushUrl: config.apnsUrl,
      managementUrl: environment === 'sandbox' ? config.apnsSandboxManagementUrl : config.apnsManagementUrl,
      ...options,
      environment,
    }),
  );
  return {
    send: (token, content, context) =>
      sendToApnsEnvironment(clientFor, token, content, { threadId: context.channelCode }, context.apnsEnvironment),
    // In the subscriber's known environment (given at registration or learned), else learned as for notifications.
    sendLiveActivity: (token, push, _reader, apnsEnvironment) =>
      sendLiveActivityToApnsEnvironment(clientFor, token, push, apnsEnvironment),
    liveActivityBroadcast: broadcast,
    stats: () => {
      const [live, learning] = [production.stats(), sandbox?.stats()];
      return learning
        ? {
            sessions: live.sessions + learning.sessions,
            activeStreams: live.activeStreams + learning.activeStreams,
            queued: live.queued + learning.queued,
          }
        : live;
    },
    close: async () => {
      await Promise.all([production.close(), sandbox?.close(), broadcast.close()]);
    },
  };
}

function fcmSender(config: Config, clock: Clock, logger: Logger): PushSender {
  if (!config.fcmServiceAccountFile) {
    logger.warn('FCM is not configured: Android pushes will fail with fcm_not_configured');
    return unconfiguredSender('fcm_not_configured', 'set CLARION_FCM_SERVICE_ACCOUNT_FILE to deliver to Android');
  }
  const client = withCredentialErrors(() =>
    createFcmClient({ url: config.fcmUrl, serviceAccountFile: config.fcmServiceAccountFile!, clock, logger }),
  );
  return {
    send: (token, content) => client.send(token, content),
    sendLiveActivity: (token, push) => sendFcmLiveActivity(client, token, push),
    stats: () => client.stats(),
    close: () => client.close(),
  };
}

/**
 * Web Push signs with the instance's VAPID keys (web-push/vapid-keys.ts), which the server resolves at start. Without
 * them (the stored private key did not open, or a caller built the providers without), web pushes fail loudly.
 */
function webSender(config: Config, clock: Clock, logger: Logger, vapidKeys: VapidKeys | null): PushSender {
  if (!vapidKeys)
    return unconfiguredSender(
      'web_push_not_configured',
      'the worker has no VAPID keys: see its start-up log (every process on one database needs the same CLARION_SECRET_KEY, or set CLARION_VAPID_PUBLIC_KEY / CLARION_VAPID_PRIVATE_KEY)',
    );
  const client = createWebPushClient({ keys: vapidKeys, clock, allowPrivate: allowsPrivateAddresses(config), logger });
  return {
    send: (token, content) => client.send(token, content),
    sendLiveActivity: (token, push, reader) => sendWebLiveActivity(client, token, push, reader),
    close: () => client.close(),
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
