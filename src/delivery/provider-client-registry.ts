import type { Config } from '../config/load-config.ts';
import type { ApnsEnvironment } from '../domain/apns-environment.ts';
import type { Clock } from '../domain/clock.ts';
import { findAppById, type App } from '../store/apps-queries.ts';
import type { Store } from '../store/database.ts';
import type { ApnsClient } from './apns/apns-client.ts';
import { createApnsProviderTokens, type ApnsProviderTokens } from './apns/apns-provider-token.ts';
import { openAppCredentials } from './app-credentials.ts';
import {
  apnsClientOf,
  fcmClientOf,
  sendersOf,
  type AppKeys,
  type ClientCache,
  type ProviderClient,
  type SenderDependencies,
} from './app-senders.ts';
import type { FcmClient } from './fcm/fcm-client.ts';
import { uploadedTokenUriPolicy } from './fcm/fcm-token-uri.ts';
import type { DeliveryLogger } from './http2/session-pool.ts';
import type { PushProviders } from './push-sender.ts';
import { vapidSubject } from './web-push/vapid-subject.ts';

/**
 * The provider clients of every app (docs/apps.md, "Delivery per app"), keyed by (app, platform, APNs environment):
 * each its own HTTP/2 pool, JWT or OAuth token, or VAPID signer. Created on the first push that needs one, closed after
 * `idleMs` without use, and at most `maxClients` open at once (least recently used closed first), so 10,000 apps do
 * not hold 10,000 idle connections. The senders are app-senders.ts's, the same as the built-in app's
 * (built-in-app.ts: from CLARION_APNS_* / CLARION_FCM_*, for channels without an app), whose clients live for the
 * worker's life.
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

interface Entry {
  client: ProviderClient;
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

  function use<T extends ProviderClient>(key: string, create: () => T): T {
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

  const senderDeps: SenderDependencies = { config, clock, logger, providerTokens };
  /** An app's clients in the cache, keyed by its `updated_at` too: new credentials make new clients. */
  const cacheOf = (app: App): ClientCache => ({
    use: (part, create) => use(`${app.id}:${app.updated_at}:${part}`, create),
  });
  const missing = (app: App, platform: 'iOS' | 'Android') =>
    `app ${app.id} has no ${platform} credentials: add them with PATCH /api/v1/apps/${app.id} or \`clarion apps update\``;

  /** The app as its senders are built from it. Secrets are opened only when a client is made, not per push. */
  function keysOf(app: App): AppKeys {
    const opened = () => openAppCredentials(options.secretKey, app);
    return {
      ios:
        app.apns_sealed_key && app.apns_topic
          ? { topic: app.apns_topic, open: () => opened().apns! }
          : { reason: 'apns_not_configured', fix: missing(app, 'iOS') },
      android: app.fcm_sealed_service_account
        ? { open: () => ({ serviceAccount: opened().fcm!.serviceAccount, tokenUri: uploadedTokenUriPolicy(config) }) }
        : { reason: 'fcm_not_configured', fix: missing(app, 'Android') },
      web: {
        open: () => {
          const { vapid } = opened();
          return {
            publicKey: vapid.publicKey,
            privateKey: vapid.privateKey,
            subject: vapid.subject ?? vapidSubject(config),
            source: 'database' as const,
          };
        },
      },
    };
  }

  function apnsClient(app: App, environment: ApnsEnvironment): ApnsClient | null {
    const { ios } = keysOf(app);
    return 'open' in ios ? apnsClientOf(ios, cacheOf(app), senderDeps)(environment) : null;
  }

  function fcmClient(app: App): FcmClient | null {
    const { android } = keysOf(app);
    return 'open' in android ? fcmClientOf(android, cacheOf(app), senderDeps)() : null;
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
    const senders = sendersOf(keysOf(app), cacheOf(app), senderDeps);
    return options.instrument ? options.instrument(senders) : senders;
  }

  function builtIn(): PushProviders {
    if (!options.builtIn) throw new Error('this process has no built-in providers: it delivers nothing itself');
    return options.builtIn;
  }

  // On the clock that times `lastUsed`, so a test that moves the clock past `idleMs` sees the sweep.
  const stopSweep = clock.every(Math.min(idleMs, 60_000), () => void closeIdle(), { keepsProcessAlive: false });

  return {
    providersFor,
    apnsClient,
    fcmClient,
    closeIdle,
    size: () => entries.size,
    async close() {
      stopSweep();
      for (const entry of entries.values()) closeEntry(entry);
      entries.clear();
      await Promise.all([...closing]);
    },
  };
}
