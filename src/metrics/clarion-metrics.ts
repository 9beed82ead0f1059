import {
  AggregatorRegistry,
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';

/** Seconds buckets for the API's answers: the accept path answers in a few ms, a slow database in seconds. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds buckets for one push: APNs and FCM answer in 20–200 ms; the clients time a request out at 15 s. */
const PROVIDER_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** What one process serves as metrics from another thread (src/worker-thread.ts): its registry as JSON. */
export type RemoteMetrics = () => Promise<MetricObjectWithValues<MetricValue<string>>[]>;

/** Values a gauge reads when it is scraped (src/metrics/queue-gauges.ts, the HTTP/2 pool counters). */
export type ScrapeSource = () => Promise<void> | void;

/**
 * Every metric Clarion exports, on a registry of its own per instance: several apps in one process (the tests) do not
 * share prom-client's global registry, and nothing registers twice. Names start with `clarion_`; labels are bounded
 * (route pattern rather than URL, platform, outcome, a capped reason: never an account, channel or token), so the
 * number of series stays fixed however many customers an instance has. docs/ops.md lists them with the alerts worth
 * setting, and docs/ops/grafana-dashboard.json draws them.
 *
 * The hot paths keep to what prom-client makes cheap: one histogram observation per request and per push (about
 * 0.3–0.7 µs: prom-client hashes the labels every time), counters on children looked up once or tallied in a Map and
 * added at scrape time (src/delivery/push-metrics.ts); everything that needs a query (queue depth, jobs by state) is read
 * when Prometheus scrapes, through a short cache (queue-gauges.ts), never per request. Measured in docs/ops.md,
 * "What metrics cost".
 */
export class ClarionMetrics {
  readonly registry = new Registry();
  private readonly sources: ScrapeSource[] = [];
  private readonly remotes: RemoteMetrics[] = [];

  readonly httpDuration = new Histogram({
    name: 'clarion_http_request_duration_seconds',
    help: 'HTTP requests answered, by method, route pattern and status, with the time to answer.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  readonly apiErrors = new Counter({
    name: 'clarion_http_errors_total',
    help: "Error answers by error code (the envelope's error.code, docs/errors.md).",
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  readonly quotaRejections = new Counter({
    name: 'clarion_quota_rejections_total',
    help: 'Sends refused with 429 quota_exceeded because the account spent its monthly quota.',
    registers: [this.registry],
  });
  readonly notificationsAccepted = new Counter({
    name: 'clarion_notifications_accepted_total',
    help: 'Notifications accepted (stored, quota charged, dispatch queued) by POST /api/v1/notifications and /notify, by timing (now, or scheduled for later).',
    labelNames: ['timing'] as const,
    registers: [this.registry],
  });
  /** The two children of the accept path, looked up once (a labelled inc() hashes its labels every time). */
  readonly acceptedNow = this.notificationsAccepted.labels({ timing: 'now' });
  readonly acceptedScheduled = this.notificationsAccepted.labels({ timing: 'scheduled' });
  readonly pushes = new Counter({
    name: 'clarion_pushes_total',
    help: 'Pushes answered by a provider (or failed to reach it), by platform, outcome (delivered, retry, token_dead, rejected, fatal) and reason.',
    labelNames: ['platform', 'outcome', 'reason'] as const,
    registers: [this.registry],
    // Tallied per push in a plain Map and added here (src/delivery/push-metrics.ts).
    collect: () => this.collectSources(),
  });
  readonly providerDuration = new Histogram({
    name: 'clarion_provider_request_duration_seconds',
    help: 'Time from handing a push to the provider client to its answer, by platform (includes waiting for a free HTTP/2 stream).',
    labelNames: ['platform'] as const,
    buckets: PROVIDER_BUCKETS,
    registers: [this.registry],
  });
  readonly jobsFinished = new Counter({
    name: 'clarion_jobs_finished_total',
    help: "Job attempts ended by this process's worker, by job kind and result (completed, retry, failed, released at shutdown).",
    labelNames: ['kind', 'result'] as const,
    registers: [this.registry],
  });
  readonly leaseExpiries = new Counter({
    name: 'clarion_job_lease_expiries_total',
    help: 'Running jobs whose lease expired (their worker died or stalled) and that the rescuer handed back (or failed, when that was their last attempt).',
    registers: [this.registry],
  });
  readonly leasesLost = new Counter({
    name: 'clarion_job_leases_lost_total',
    help: 'Jobs this worker finished after its lease had already been taken over (the rescuer gave the job to another worker).',
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'clarion_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed, skipped: the endpoint was disabled).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly queueJobs = new Gauge({
    name: 'clarion_queue_jobs',
    help: 'Unfinished jobs in the queue by kind and state (due: available and due now; scheduled: available later; running).',
    labelNames: ['kind', 'state'] as const,
    registers: [this.registry],
    collect: () => this.collectSources(),
  });
  readonly queueOldestDueAge = new Gauge({
    name: 'clarion_queue_oldest_due_job_age_seconds',
    help: 'How long the oldest due job has waited for a worker (0 when none is due).',
    registers: [this.registry],
    collect: () => this.collectSources(),
  });
  readonly http2Sessions = new Gauge({
    name: 'clarion_http2_sessions',
    help: 'Open HTTP/2 connections to a push provider, by platform.',
    labelNames: ['platform'] as const,
    registers: [this.registry],
    collect: () => this.collectSources(),
  });
  readonly http2Streams = new Gauge({
    name: 'clarion_http2_active_streams',
    help: 'HTTP/2 streams (pushes) in flight to a provider, by platform.',
    labelNames: ['platform'] as const,
    registers: [this.registry],
    collect: () => this.collectSources(),
  });
  readonly http2Queued = new Gauge({
    name: 'clarion_http2_queued_requests',
    help: 'Pushes waiting for a free HTTP/2 stream, by platform.',
    labelNames: ['platform'] as const,
    registers: [this.registry],
    collect: () => this.collectSources(),
  });

  /** `processMetrics`: prom-client's CPU, memory, event loop lag, GC and handles, once per process (src/server.ts). */
  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'clarion_' });
  }

  /** Adds work to run when a scrape reads the gauges (cheap queries behind a cache, pool counters). */
  onScrape(source: ScrapeSource): void {
    this.sources.push(source);
  }

  /** Adds another thread's metrics, summed into this registry's at every scrape (the worker thread). */
  addRemote(remote: RemoteMetrics): void {
    this.remotes.push(remote);
  }

  readonly contentType = this.registry.contentType;

  /** The Prometheus text exposition of this registry, plus any other thread's. */
  async render(): Promise<string> {
    if (this.remotes.length === 0) return this.registry.metrics();
    const own = await this.registry.getMetricsAsJSON();
    const others = await Promise.all(this.remotes.map((remote) => remote().catch(() => [])));
    return AggregatorRegistry.aggregate([own, ...others]).metrics();
  }

  private scraping: Promise<void> | null = null;

  /**
   * All sources run once per scrape although every scrape-fed gauge asks: prom-client reads the metrics concurrently,
   * so each of those gauges waits on the same run before its values are read. A failing source keeps the last values.
   */
  private async collectSources(): Promise<void> {
    this.scraping ??= Promise.all(this.sources.map((source) => source())).then(
      () => undefined,
      () => undefined,
    );
    try {
      await this.scraping;
    } finally {
      this.scraping = null;
    }
  }
}
