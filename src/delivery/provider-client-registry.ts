import type { Config } from '../config/load-config.ts';
import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import type { Clock } from '../domain/clock.ts';
import { findAppById, type App } from '../store/apps-store.ts';
import type { Store } from '../store/database.ts';
import { allowsPrivateAddresses } from '../net/outbound-url-guard.ts';
import {
  apnsEnvironmentOf,
  createApnsBroadcastConnection,
  type ApnsBroadcastConnection,
} from './apns/apns-broadcast.ts';
import { createApnsClient, type ApnsClient } from './apns/apns-client.ts';
import { createApnsProviderTokens, type ApnsProviderTokens } from './apns/apns-provider-token.ts';
import { sendLiveActivityToApnsEnvironment, sendToApnsEnvironment } from './apns/apns-environment-sender.ts';
import { openAppCredentials } from './app-credentials.ts';
import { createFcmClient, type FcmClient } from './fcm/fcm-client.ts';
import type { DeliveryLogger } from './http2-session-pool.ts';
import { uploadedTokenUriPolicy } from './fcm/fcm-token-uri.ts';
import {
  sendApnsLiveActivity,
  sendFcmLiveActivity,
  sendWebLiveActivity,
} from './live-activities/live-activity-senders.ts';
import { unconfiguredSender, type PushProviders } from './push-sender.ts';
import { vapidSubject } from './web-push/vapid-subject.ts';
import { createWebPushClient, type WebPushClient } from './web-push/web-push-client.ts';

/**
 * The provider clients of every app (docs/apps.md, "Delivery per app"), keyed by (app, platform, APNs environment):
 * each its own HTTP/2 pool, JWT or OAuth token, or VAPID signer. Created on the first push that needs one, closed after
 * `idleMs` without use, and at most `maxClients` open at once (least recently used closed first), so 10,000 apps do
 * not hold 10,000 idle connections. A channel without an app uses the built-in providers from CLARION_APNS_* /
 * CLARION_FCM_* (push-providers.ts), which live for the worker's life.
 *
 * Clients are keyed by the app's `updated_at` too: new credentials (PATCH /apps/{id}) make new clients, and the old ones
 * age out. The Live Activity helpers get their APNs client here the same way (`apnsClient`), and so does "Test
 * credentials" (app-credentials-check.ts): the API process has a registry of its own, or shares the worker's when both
 * roles run in one process (src/server.ts). Every APNs client signs with the process's provider token of its key
 * (`providerTokens`), shared with the built-in clients.
 */
export interface ProviderClientRegistry {
  /**
   * The senders of an app, or the built-in ones for null. Reads the app's row, so changed credentials apply at once.
   * An app that no longer exists gets `whenGone`'s app's senders, or else the built-in ones.
   */
  providersFor(appId: string | null, whenGone?: () => Promise<string | null>): Promise<PushProviders>;
  /** One APNs client of an app (null: the app has no iOS credentials). */
  apnsClient(app: App, environment: ApnsEnvironment): ApnsClient | null;
  /** The FCM client of an app (null: the app has no Android credentials). */
  fcmClient(app: App): FcmClient | null;
  /** Closes clients idle longer than `idleMs` (also on a timer). */
  closeIdle(): Promise<void>;
  /** How many app clients are open, for tests and metrics. */
  size(): number;
  close(): Promise<void>;
}

export interface ProviderClientRegistryOptions {
  store: Store;
  config: Config;
  clock: Clock;
  logger: DeliveryLogger;
  secretKey: Buffer;
  /** The built-in providers, for channels without an app; absent in a process that delivers nothing itself (the API's). */
  builtIn?: PushProviders;
  /** The process's APNs provider tokens, one per key (apns/apns-provider-token.ts); default: the registry's own. */
  providerTokens?: ApnsProviderTokens;
  /** Wraps an app's senders (the push metrics, src/delivery/push-metrics.ts); none: used as they are. */
  instrument?: (providers: PushProviders) => PushProviders;
  /** Default 500 clients. */
  maxClients?: number;
  /** Default 10 minutes: well past one fan-out's batches, short enough that a quiet app's connections go. */
  idleMs?: number;
}

type Client =
  | { kind: 'apns'; client: ApnsClient }
  | { kind: 'apns-broadcast'; client: ApnsBroadcastConnection }
  | { kind: 'fcm'; client: FcmClient }
  | { kind: 'web'; client: WebPushClient };
interface Entry {
  client: Client;
  lastUsed: number;
}

const DEFAULT_MAX_CLIENTS = 500;
const DEFAULT_IDLE_MS = 10 * 60_000;

export function createProviderClientRegistry(options: ProviderClientRegistryOptions): ProviderClientRegistry {
  const maxClients = options.maxClients ?? DEFAULT_MAX_CLIENTS;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const { clock, config, logger } = options;
  const providerTokens = options.providerTokens ?? createApnsProviderTokens(clock);
  /** Map order is use order: the first entry is the least recently used. */
  const entries = new Map<string, Entry>();
  const closing = new Set<Promise<void>>();

  function closeEntry(entry: Entry): void {
    const done = entry.client.client
      .close()
      .catch((error: unknown) => logger.warn({ err: error }, 'closing an app provider client failed'));
    closing.add(done);
    void done.finally(() => closing.delete(done));
  }

  function use<T extends Client>(key: string, create: () => T): T {
    const found = entries.get(key);
    if (found) {
      entries.delete(key);
      found.lastUsed = clock.now();
      entries.set(key, found);
      return found.client as T;
    }
    const client = create();
    entries.set(key, { client, lastUsed: clock.now() });
    while (entries.size > maxClients) {
      const [oldestKey, oldest] = entries.entries().next().value!;
      entries.delete(oldestKey);
      closeEntry(oldest);
    }
    return client;
  }

  const keyOf = (app: App, part: string) => `${app.id}:${app.updated_at}:${part}`;

  // Secrets are opened only when a client is created, not per push: a cached client already holds what it needs.
  const opened = (app: App) => openAppCredentials(options.secretKey, app);

  function apnsClient(app: App, environment: ApnsEnvironment): ApnsClient | null {
    if (!app.apns_sealed_key) return null;
    const url = environment === 'production' ? config.apnsUrl : config.apnsSandboxUrl;
    return use(keyOf(app, `ios:${environment}`), () => ({
      kind: 'apns' as const,
      client: createApnsClient({ url, ...opened(app).apns!, clock, providerTokens, logger }),
    })).client;
  }

  function fcmClient(app: App): FcmClient | null {
    if (!app.fcm_sealed_service_account) return null;
    return use(keyOf(app, 'android'), () => ({
      kind: 'fcm' as const,
      client: createFcmClient({
        url: config.fcmUrl,
        serviceAccount: opened(app).fcm!.serviceAccount,
        tokenUri: uploadedTokenUriPolicy(config),
        clock,
        logger,
      }),
    })).client;
  }

  /**
   * The app's Live Activity broadcast connection (apns/apns-broadcast.ts), in the push host's environment like the
   * built-in one (push-providers.ts). What the send path holds is a stand-in: the real connection (two HTTP/2 pools and
   * a JWT) is made on its first request and then lives in the LRU like the push clients, so an app that never
   * broadcasts opens nothing, and an idle one's connection is closed.
   */
  function broadcastConnection(app: App): ApnsBroadcastConnection {
    const environment = apnsEnvironmentOf(config.apnsUrl);
    const managementUrl = environment === 'sandbox' ? config.apnsSandboxManagementUrl : config.apnsManagementUrl;
    const connection = () =>
      use(keyOf(app, `ios-broadcast:${environment}`), () => ({
        kind: 'apns-broadcast' as const,
        client: createApnsBroadcastConnection({
          pushUrl: config.apnsUrl,
          managementUrl,
          ...opened(app).apns!,
          environment,
          clock,
          providerTokens,
          logger,
        }),
      })).client;
    return {
      topic: app.apns_topic!,
      environment,
      request: (host, headers, body) => connection().request(host, headers, body),
      close: async () => {},
    };
  }

  function providersOf(app: App): PushProviders {
    const ios = app.apns_sealed_key
      ? {
          send: (
            token: string,
            content: Parameters<PushProviders['ios']['send']>[1],
            context: Parameters<PushProviders['ios']['send']>[2],
          ) =>
            sendToApnsEnvironment(
              (environment) => apnsClient(app, environment)!,
              token,
              content,
              { threadId: context.channelCode },
              context.apnsEnvironment,
            ),
          sendLiveActivity: (
            token: string,
            push: Parameters<typeof sendApnsLiveActivity>[2],
            _reader: unknown,
            apnsEnvironment?: ApnsEnvironment | null,
          ) =>
            sendLiveActivityToApnsEnvironment(
              (environment) => apnsClient(app, environment)!,
              token,
              push,
              apnsEnvironment,
            ),
          liveActivityBroadcast: broadcastConnection(app),
          close: async () => {},
        }
      : unconfiguredSender(
          'apns_not_configured',
          `app ${app.id} has no iOS credentials: add them with PATCH /api/v1/apps/${app.id} or \`clarion apps update\``,
        );
    const android = app.fcm_sealed_service_account
      ? {
          send: (token: string, content: Parameters<PushProviders['android']['send']>[1]) =>
            fcmClient(app)!.send(token, content),
          sendLiveActivity: (token: string, push: Parameters<typeof sendFcmLiveActivity>[2]) =>
            sendFcmLiveActivity(fcmClient(app)!, token, push),
          close: async () => {},
        }
      : unconfiguredSender(
          'fcm_not_configured',
          `app ${app.id} has no Android credentials: add them with PATCH /api/v1/apps/${app.id} or \`clarion apps update\``,
        );
    const webClient = () =>
      use(keyOf(app, 'web'), () => {
        const { vapid } = opened(app);
        const keys = {
          publicKey: vapid.publicKey,
          privateKey: vapid.privateKey,
          subject: vapid.subject ?? vapidSubject(config),
          source: 'database' as const,
        };
        return {
          kind: 'web' as const,
          client: createWebPushClient({ keys, clock, allowPrivate: allowsPrivateAddresses(config), logger }),
        };
      }).client;
    const web = {
      send: (token: string, content: Parameters<PushProviders['web']['send']>[1]) => webClient().send(token, content),
      sendLiveActivity: (
        token: string,
        push: Parameters<typeof sendWebLiveActivity>[2],
        reader: Parameters<typeof sendWebLiveActivity>[3],
      ) => sendWebLiveActivity(webClient(), token, push, reader),
      close: async () => {},
    };
    return { ios, android, web };
  }

  async function closeIdle(): Promise<void> {
    const cutoff = clock.now() - idleMs;
    for (const [key, entry] of entries) {
      if (entry.lastUsed > cutoff) continue;
      entries.delete(key);
      closeEntry(entry);
    }
    await Promise.all([...closing]);
  }

  // A plain function: callers pass it around unbound (src/worker.ts).
  async function providersFor(appId: string | null, whenGone?: () => Promise<string | null>): Promise<PushProviders> {
    if (appId === null) return builtIn();
    const app = await findAppById(options.store.db, appId);
    if (!app) return whenGone ? providersFor(await whenGone()) : builtIn();
    return options.instrument ? options.instrument(providersOf(app)) : providersOf(app);
  }

  function builtIn(): PushProviders {
    if (!options.builtIn) throw new Error('this process has no built-in providers: it delivers nothing itself');
    return options.builtIn;
  }

  const sweep = setInterval(() => void closeIdle(), Math.min(idleMs, 60_000));
  sweep.unref();

  return {
    providersFor,
    apnsClient,
    fcmClient,
    closeIdle,
    size: () => entries.size,
    async close() {
      clearInterval(sweep);
      for (const entry of entries.values()) closeEntry(entry);
      entries.clear();
      await Promise.all([...closing]);
    },
  };
}
