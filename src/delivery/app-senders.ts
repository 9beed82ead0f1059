import type { Config } from '../config/load-config.ts';
import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import type { Clock } from '../domain/clock.ts';
import { allowsPrivateAddresses } from '../net/outbound-url-guard.ts';
import {
  apnsEnvironmentOf,
  createApnsBroadcastConnection,
  type ApnsBroadcastConnection,
} from './live-activities/apns-broadcast.ts';
import { createApnsClient, type ApnsClient } from './apns/apns-client.ts';
import {
  sendLiveActivityToApnsEnvironment,
  sendToApnsEnvironment,
  sendWidgetReloadToApnsEnvironment,
} from './apns/apns-environment-sender.ts';
import type { ApnsProviderTokens } from './apns/apns-provider-token.ts';
import { createFcmClient, type FcmClient } from './fcm/fcm-client.ts';
import type { TokenUriPolicy } from './fcm/fcm-token-uri.ts';
import type { DeliveryLogger } from './http2/session-pool.ts';
import { sendFcmLiveActivity, sendWebLiveActivity } from './live-activities/live-activity-senders.ts';
import { unconfiguredSender, type PushProviders, type PushSender, type SenderCapabilities } from './push-sender.ts';
import type { VapidKeys } from './web-push/vapid-keys.ts';
import { createWebPushClient, type WebPushClient } from './web-push/web-push-client.ts';

/** An app's APNs key: the .p8 itself (an account's upload) or the file it is in (the built-in app's). */
export interface ApnsKeys {
  keyPem?: string;
  keyFile?: string;
  keyId: string;
  teamId: string;
  topic: string;
}

/** An app's FCM service account: parsed (an account's upload) or its file (the built-in app's), and where its token_uri may point. */
export interface FcmKeys {
  serviceAccount?: unknown;
  serviceAccountFile?: string;
  tokenUri?: TokenUriPolicy;
}

/** Why a platform of an app cannot send, and what fixes it: every push to it fails as `fatal` with both. */
export interface Unconfigured {
  reason: string;
  fix: string;
}

/**
 * An app as its senders are built from it: an account's (docs/apps.md; opened from its row by the registry,
 * provider-client-registry.ts) or the built-in one (from CLARION_APNS_* / CLARION_FCM_* and the instance's VAPID keys,
 * built-in-app.ts). The secrets are opened by `open`, called only when a client is made, never per push.
 */
export interface AppKeys {
  /** `topic` (the bundle id) without opening the key: the broadcast connection names it on every request. */
  ios: { topic: string; open(): ApnsKeys } | Unconfigured;
  android: { open(): FcmKeys } | Unconfigured;
  web: { open(): VapidKeys } | Unconfigured;
}

/** A provider client as the caches hold it. */
export type ProviderClient =
  | { kind: 'apns'; client: ApnsClient }
  | { kind: 'apns-broadcast'; client: ApnsBroadcastConnection }
  | { kind: 'fcm'; client: FcmClient }
  | { kind: 'web'; client: WebPushClient };

/**
 * Where an app's senders keep their clients: the registry's cache of every account's app (least recently used and
 * idle clients closed), or the built-in app's own (kept for the worker's life). `part` names the client within the app.
 */
export interface ClientCache {
  use<T extends ProviderClient>(part: string, create: () => T): T;
}

export interface SenderDependencies {
  config: Config;
  clock: Clock;
  logger: DeliveryLogger;
  /** The process's APNs provider tokens, one per key (docs/protocols.md 1.2), shared by every app's clients. */
  providerTokens: ApnsProviderTokens;
}

type IosKeys = Exclude<AppKeys['ios'], Unconfigured>;
type AndroidKeys = Exclude<AppKeys['android'], Unconfigured>;
type WebKeys = Exclude<AppKeys['web'], Unconfigured>;

/**
 * An app's APNs client for one environment, made through `clients` on first use. Asked for on every push: the part
 * names and the functions that make the clients are made once here, so a push costs one lookup in the cache.
 */
export function apnsClientOf(keys: IosKeys, clients: ClientCache, deps: SenderDependencies) {
  const { config, clock, logger, providerTokens } = deps;
  const maker = (environment: ApnsEnvironment) => {
    const url = environment === 'production' ? config.apnsUrl : config.apnsSandboxUrl;
    return () => ({
      kind: 'apns' as const,
      client: createApnsClient({ url, ...keys.open(), clock, providerTokens, logger }),
    });
  };
  const production = maker('production');
  const sandbox = maker('sandbox');
  return (environment: ApnsEnvironment): ApnsClient =>
    environment === 'production'
      ? clients.use('ios:production', production).client
      : clients.use('ios:sandbox', sandbox).client;
}

/** An app's FCM client, made through `clients` on first use (asked for on every push, as above). */
export function fcmClientOf(keys: AndroidKeys, clients: ClientCache, deps: SenderDependencies) {
  const { config, clock, logger } = deps;
  const make = () => ({
    kind: 'fcm' as const,
    client: createFcmClient({ url: config.fcmUrl, ...keys.open(), clock, logger }),
  });
  return (): FcmClient => clients.use('android', make).client;
}

/**
 * The app's Live Activity broadcast connection (live-activities/apns-broadcast.ts), in the push host's environment (the sandbox
 * management host for the sandbox). What the send path holds is a stand-in: the real connection (two HTTP/2 pools and
 * a JWT) is made through `clients` on its first request, so an app that never broadcasts opens nothing.
 */
function broadcastOf(keys: IosKeys, clients: ClientCache, deps: SenderDependencies): ApnsBroadcastConnection {
  const { config, clock, logger, providerTokens } = deps;
  const environment = apnsEnvironmentOf(config.apnsUrl);
  const managementUrl = environment === 'sandbox' ? config.apnsSandboxManagementUrl : config.apnsManagementUrl;
  const connection = (): ApnsBroadcastConnection =>
    clients.use(`ios-broadcast:${environment}`, () => ({
      kind: 'apns-broadcast' as const,
      client: createApnsBroadcastConnection({
        pushUrl: config.apnsUrl,
        managementUrl,
        ...keys.open(),
        environment,
        clock,
        providerTokens,
        logger,
      }),
    })).client;
  return {
    topic: keys.topic,
    environment,
    request: (host, headers, body) => connection().request(host, headers, body),
    close: async () => {},
  };
}

/**
 * The senders of one app, the same code for every account's apps and the built-in one: clients are made through
 * `clients` on the first push that needs them, and closed by whoever owns that cache (the senders' `close` does
 * nothing). iOS goes to the subscriber's APNs environment (learned on the first push where not known:
 * apns/apns-environment-sender.ts). A platform without credentials fails its pushes loudly (`unconfiguredSender`).
 */
export function sendersOf(app: AppKeys, clients: ClientCache, deps: SenderDependencies): PushProviders {
  const ios = (keys: IosKeys): PushSender & SenderCapabilities => {
    const apnsClient = apnsClientOf(keys, clients, deps);
    return {
      send: (token, content, context, receipt) =>
        sendToApnsEnvironment(
          apnsClient,
          token,
          content,
          receipt === undefined ? { threadId: context.channelCode } : { threadId: context.channelCode, receipt },
          context.apnsEnvironment,
        ),
      // In the subscriber's known environment (given at registration or learned), else learned as for notifications.
      sendLiveActivity: (token, push, _reader, apnsEnvironment) =>
        sendLiveActivityToApnsEnvironment(apnsClient, token, push, apnsEnvironment),
      sendWidgetReload: (token, apnsEnvironment) =>
        sendWidgetReloadToApnsEnvironment(apnsClient, token, apnsEnvironment),
      liveActivityBroadcast: broadcastOf(keys, clients, deps),
      close: async () => {},
    };
  };
  const android = (keys: AndroidKeys): PushSender => {
    const fcmClient = fcmClientOf(keys, clients, deps);
    return {
      send: (token, content, _context, receipt) => fcmClient().send(token, content, receipt),
      sendLiveActivity: (token, push) => sendFcmLiveActivity(fcmClient(), token, push),
      close: async () => {},
    };
  };
  const web = (keys: WebKeys): PushSender => {
    const make = () => ({
      kind: 'web' as const,
      client: createWebPushClient({
        keys: keys.open(),
        clock: deps.clock,
        allowPrivate: allowsPrivateAddresses(deps.config),
        fallbackUrl: deps.config.baseUrl,
        logger: deps.logger,
      }),
    });
    const webClient = (): WebPushClient => clients.use('web', make).client;
    return {
      send: (token, content, _context, receipt) => webClient().send(token, content, receipt),
      sendLiveActivity: (token, push, reader) => sendWebLiveActivity(webClient(), token, push, reader),
      close: async () => {},
    };
  };
  const unconfigured = (missing: Unconfigured) => unconfiguredSender(missing.reason, missing.fix);
  return {
    ios: 'open' in app.ios ? ios(app.ios) : unconfigured(app.ios),
    android: 'open' in app.android ? android(app.android) : unconfigured(app.android),
    web: 'open' in app.web ? web(app.web) : unconfigured(app.web),
  };
}
