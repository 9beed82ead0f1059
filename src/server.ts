import pino, { type Logger } from 'pino';
import type { Config } from './config/load-config.ts';
import { resolveSecretKey } from './config/secret-key.ts';
import { systemClock } from './domain/clock.ts';
import { startDeliveryWorker, type DeliveryWorker } from './worker.ts';
import { startWorkerThread, type WorkerThread } from './worker-thread.ts';
import { createPushProviders } from './delivery/built-in-app.ts';
import { createApnsProviderTokens } from './delivery/apns/apns-provider-token.ts';
import { resolveVapidKeys, type VapidKeys } from './delivery/web-push/vapid-keys.ts';
import { localhostSubjectWarning } from './delivery/web-push/vapid-subject.ts';
import { SecretBoxError } from './domain/secret-box.ts';
import type { Store } from './store/database.ts';
import type { ClarionApp } from './http/app-types.ts';
import { ClarionMetrics } from './metrics/clarion-metrics.ts';
import {
  DEFAULT_METRICS_PORT,
  MetricsPortInUseError,
  startMetricsListener,
  type MetricsListener,
} from './metrics/metrics-listener.ts';
import { watchQueue } from './metrics/queue-gauges.ts';
import { JobQueue } from './queue/job-queue.ts';
import { describeStore, openStore } from './store/database.ts';
import { listenHost, listenOn } from './http/listen-on.ts';
import { instanceHasAccounts } from './store/accounts-queries.ts';
import { migrateToLatest } from './store/migrate.ts';

/** Which code this process runs (bin/entry-point.js): the compiled build, or the TypeScript sources through tsx. */
const RUNNING_FROM = import.meta.url.endsWith('.js') ? 'dist' : 'src';

export interface RunningServer {
  app: ClarionApp | null;
  worker: DeliveryWorker | null;
  address: string | null;
  /** The address the API is bound to (CLARION_HOST, or loopback for a new instance: src/http/listen-on.ts). */
  host: string | null;
  /** host:port of the CLARION_METRICS_PORT listener, when one was asked for. */
  metricsAddress: string | null;
  logger: Logger;
  /** Stops taking requests and jobs, lets in-flight ones finish (handing unfinished jobs back), closes the database. */
  close(graceMs?: number): Promise<void>;
}

export interface ServeRoles {
  api: boolean;
  worker: boolean;
}

export interface ListenOptions {
  /**
   * Whether the operator set CLARION_HOST (src/config/load-config.ts optionGiven): then config.host is used as is.
   * Unset, an instance whose first sign-up is open listens on loopback only (src/http/listen-on.ts). A caller that
   * builds its Config in code has chosen its host, hence the default.
   */
  hostGiven: boolean;
}

/**
 * The VAPID keys, generated on the first start. A stored private key that this process's secret key cannot open (the
 * processes on one database were given different CLARION_SECRET_KEYs) does not stop the API or the other platforms:
 * it is logged, and web pushes fail loudly (`web_push_not_configured`) until the keys agree. Bad CLARION_VAPID_*
 * values stop start-up like any other configuration error.
 */
async function loadVapidKeys(
  store: Store,
  secretKey: Buffer,
  config: Config,
  now: number,
  logger: Logger,
): Promise<VapidKeys | null> {
  try {
    const keys = await resolveVapidKeys(store.db, secretKey, config, now);
    logger.info({ source: keys.source, publicKey: keys.publicKey, subject: keys.subject }, 'Web Push VAPID keys ready');
    const warning = localhostSubjectWarning(keys.subject);
    if (warning !== null) logger.warn({ subject: keys.subject }, warning);
    return keys;
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    logger.error(
      { err: error },
      'the stored VAPID private key does not open with this CLARION_SECRET_KEY: web pushes will fail until every process on this database has the same CLARION_SECRET_KEY',
    );
    return null;
  }
}

/**
 * Says at start who can create accounts, in one line: open sign-up hands the operator's push credentials to anyone
 * who reaches the port, so it is a warning; an instance without accounts says where the first one is made, and, when
 * it listens on loopback for that reason (listen-on.ts), why and how to open it.
 */
function logSignupPolicy(config: Config, logger: Logger, listening: { host: string; firstAccountOpen: boolean }): void {
  const create = '`clarion accounts create --name … --owner-email … --owner-password …`';
  if (config.signup === 'open') {
    logger.warn(
      { signup: 'open' },
      'CLARION_SIGNUP=open: anyone who can reach this instance can create a Free account from the dashboard and send pushes through its APNs, FCM and Web Push credentials; leave CLARION_SIGNUP unset (closed) to create accounts with `clarion accounts create` only',
    );
  } else if (listening.firstAccountOpen && listening.host !== config.host) {
    logger.warn(
      { signup: 'first-account', host: listening.host },
      `listening on ${listening.host} only: this instance has no account yet, and its first sign-up (${config.baseUrl}/#/signup) makes whoever reaches it first the operator. Create that account from this machine, or with ${create}, then restart to listen on every interface; or set CLARION_HOST=0.0.0.0 (or the address to listen on) to open it now`,
    );
  } else if (listening.firstAccountOpen) {
    logger.warn(
      { signup: 'first-account' },
      `no account yet: the first sign-up at ${config.baseUrl}/#/signup creates the operator's account (whoever reaches it first), then sign-up closes; or create it with ${create}`,
    );
  }
}

/** Opens storage, migrates it, and starts the roles asked for. The only place that listens on a port. */
export async function startServer(
  config: Config,
  roles: ServeRoles,
  listen: ListenOptions = { hostGiven: true },
): Promise<RunningServer> {
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] });
  const secretKey = resolveSecretKey(config.secretKey, config.dataDir);
  const threaded = roles.worker && roles.api && config.workerThread;
  // With the worker on a thread of its own, the two SQLite connections hand the write lock over (sqlite-write-turns.ts).
  const sqliteWriteTurns = threaded ? new SharedArrayBuffer(4) : undefined;
  const store = openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    sqliteWriteTurns,
    logger,
    serving: roles.api,
  });
  const { applied } = await migrateToLatest(store);
  logger.info(
    {
      ...describeStore(store, config),
      applied,
      code: RUNNING_FROM,
    },
    'storage ready',
  );
  const clock = systemClock;
  // Generated on the first start and stored (vapid-keys.ts): browsers subscribe with the public key from now on.
  const vapidKeys = await loadVapidKeys(store, secretKey, config, clock.now(), logger);
  const queue = JobQueue.forStore(store, clock);
  // One registry per process, with the process's own CPU, memory and event loop figures; the queue's gauges are read
  // through this process's connection when scraped.
  const metrics = new ClarionMetrics({ processMetrics: true });
  watchQueue(metrics, store, clock);
  // Before the roles start: a taken port stops start-up with nothing else left running.
  // On by default: CLARION_METRICS_PORT when set, else DEFAULT_METRICS_PORT on CLARION_METRICS_HOST
  // (127.0.0.1). A port the operator chose that is taken stops start-up; the default one taken (a second process on
  // the host) only costs this process its listener, with a warning, so several processes on one host still start.
  let metricsListener: MetricsListener | null = null;
  const metricsPort = config.metricsPort ?? DEFAULT_METRICS_PORT;
  try {
    metricsListener = await startMetricsListener(metrics, { host: config.metricsHost, port: metricsPort });
    logger.info(
      { address: metricsListener.address },
      'metrics listener ready: GET /metrics (no token; keep this address private)',
    );
  } catch (error) {
    if (config.metricsPort !== undefined || !(error instanceof MetricsPortInUseError)) {
      await store.close();
      throw error;
    }
    logger.warn(
      { port: metricsPort, host: config.metricsHost },
      'metrics listener not started: the default port is taken (another clarion on this host?); set CLARION_METRICS_PORT to give this process its own',
    );
  }

  // One APNs provider token per key for every client of this thread: the built-in ones, the apps', Test credentials.
  const providerTokens = createApnsProviderTokens(clock);
  let worker: DeliveryWorker | null = null;
  let workerThread: WorkerThread | null = null;
  let providers: Awaited<ReturnType<typeof createPushProviders>> | null = null;
  if (threaded) {
    workerThread = await startWorkerThread(config, vapidKeys, sqliteWriteTurns);
    // The worker's counters live in its thread: every scrape asks it for them and adds them to this thread's.
    metrics.addRemote(() => workerThread!.metrics());
    // The queue wakes its listeners from inside the enqueueing transaction; passed on after the current turn, the
    // message finds that transaction committed, so the thread's claim does not wait on SQLite's write lock for it.
    queue.onWake(() => setImmediate(() => workerThread!.wake()));
    logger.info(
      { concurrency: config.workerConcurrency, leaseMs: config.jobLease, thread: true },
      'delivery worker started',
    );
  } else if (roles.worker) {
    providers = createPushProviders(config, clock, logger, vapidKeys, providerTokens);
    worker = await startDeliveryWorker({
      store,
      queue,
      clock,
      config,
      logger,
      providers,
      secretKey,
      metrics,
      providerTokens,
    });
    logger.info({ concurrency: config.workerConcurrency, leaseMs: config.jobLease }, 'delivery worker started');
  }
  let app: ClarionApp | null = null;
  let address: string | null = null;
  let host: string | null = null;
  if (roles.api) {
    // Loaded only for the API role: a `serve --worker` process never imports the HTTP stack (Fastify, schemas,
    // OpenAPI, the dashboard), and idles in less memory (docs/performance.md, "Start-up and idle memory").
    const { buildApp } = await import('./http/app.ts');
    // Test credentials goes through the worker's app clients when it runs on this event loop, else through the app's own.
    app = await buildApp({
      store,
      config,
      clock,
      queue,
      secretKey,
      metrics,
      loggerInstance: logger,
      providerTokens,
      ...(worker ? { providerClients: worker.providerClients } : {}),
    });
    const firstAccountOpen = config.signup !== 'open' && !(await instanceHasAccounts(store.db));
    host = listenHost(config, { hostGiven: listen.hostGiven, firstAccountOpen });
    address = await listenOn(app, { port: config.port, host });
    logSignupPolicy(config, logger, { host, firstAccountOpen });
  }

  return {
    app,
    worker,
    address,
    host,
    metricsAddress: metricsListener?.address ?? null,
    logger,
    async close(graceMs = 8_000) {
      // The provider clients close together with the worker, not after it: they refuse new pushes and give the ones
      // in flight 2 s (http2/session-pool.ts). A send job waiting on a black-holed connection would otherwise hold
      // the worker's grace period and then its 15 s request timeout; this way it gets its answers (or
      // connection_lost, retried by a follow-up job) at once and commits its batch.
      await Promise.all([
        app?.close(),
        metricsListener?.close(),
        worker?.stop(graceMs),
        workerThread?.stop(graceMs),
        ...(providers ? Object.values(providers).map((provider) => provider.close()) : []),
      ]);
      await store.close();
    },
  };
}
