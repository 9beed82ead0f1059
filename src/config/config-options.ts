/**
 * Every option Clarion reads, declared once: its name, environment variable, default (with unit) and meaning.
 * docs/configuration.md is generated from this list by `npm run docs` (src/docs/reference-docs.ts) and kept in step
 * by a test. Names are pinned by docs/design.md 3.2: never rename a variable, add a new one instead.
 */
export type OptionKind =
  'port' | 'string' | 'url' | 'boolean' | 'integer' | 'enum' | 'duration' | 'duration-list' | 'path';

export interface OptionDeclaration {
  /** Key in the parsed config object. */
  readonly key: string;
  readonly env: string;
  readonly kind: OptionKind;
  /** Default as the text a user would write in the variable; undefined = no default (optional). */
  readonly default?: string;
  readonly values?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly description: string;
}

export const configOptions = [
  {
    key: 'port',
    env: 'CLARION_PORT',
    kind: 'port',
    default: '3000',
    description: 'TCP port the HTTP server listens on.',
  },
  {
    key: 'host',
    env: 'CLARION_HOST',
    kind: 'string',
    default: '0.0.0.0',
    description:
      'Address the HTTP server binds to (0.0.0.0 = every interface). Left unset, an instance with no account yet, whose first dashboard sign-up would make whoever reaches it the operator, listens on 127.0.0.1 only until it has an account and is restarted; a value set here is always used (docs/deploy.md).',
  },
  {
    key: 'baseUrl',
    env: 'CLARION_BASE_URL',
    kind: 'url',
    default: 'http://localhost:3000',
    description: 'Public address of this instance, used in join links and the API docs.',
  },
  {
    key: 'dataDir',
    env: 'CLARION_DATA_DIR',
    kind: 'path',
    default: './data',
    description: 'Directory for the SQLite database file (clarion.db) and the generated secret key.',
  },
  {
    key: 'databaseUrl',
    env: 'CLARION_DATABASE_URL',
    kind: 'url',
    description:
      'postgres://… URL. When set, storage and the job queue use PostgreSQL instead of the embedded SQLite file.',
  },
  {
    key: 'secretKey',
    env: 'CLARION_SECRET_KEY',
    kind: 'string',
    description:
      '32-byte key (64 hex characters or base64) that encrypts stored credentials and webhook secrets with AES-256-GCM. When unset, one is generated into <data dir>/secret.key on first start.',
  },
  {
    key: 'apnsKeyFile',
    env: 'CLARION_APNS_KEY_FILE',
    kind: 'path',
    description: 'APNs token-auth signing key (.p8 file from the Apple developer account).',
  },
  {
    key: 'apnsKeyId',
    env: 'CLARION_APNS_KEY_ID',
    kind: 'string',
    description: 'The 10-character Key ID of the .p8 key (JWT header "kid").',
  },
  {
    key: 'apnsTeamId',
    env: 'CLARION_APNS_TEAM_ID',
    kind: 'string',
    description: 'The 10-character Apple Team ID (JWT claim "iss").',
  },
  {
    key: 'apnsTopic',
    env: 'CLARION_APNS_TOPIC',
    kind: 'string',
    description: 'The app bundle id, sent as apns-topic.',
  },
  {
    key: 'apnsUrl',
    env: 'CLARION_APNS_URL',
    kind: 'url',
    default: 'https://api.push.apple.com',
    description:
      'The APNs production host (tokens of App Store, TestFlight and ad hoc builds). Tokens whose environment is not known are tried here first.',
  },
  {
    key: 'apnsSandboxUrl',
    env: 'CLARION_APNS_SANDBOX_URL',
    kind: 'url',
    default: 'https://api.sandbox.push.apple.com',
    description:
      'The APNs sandbox host (tokens of development builds). A token the production host calls BadDeviceToken is tried here once, and the environment that worked is remembered for that subscriber (docs/apps.md).',
  },
  {
    key: 'apnsManagementUrl',
    env: 'CLARION_APNS_MANAGEMENT_URL',
    kind: 'url',
    default: 'https://api-manage-broadcast.push.apple.com:2196',
    description:
      'APNs channel management origin for production apps: where Live Activity broadcast channels (iOS 18) are created, listed and deleted (docs/live-activities.md, "Broadcast").',
  },
  {
    key: 'apnsSandboxManagementUrl',
    env: 'CLARION_APNS_SANDBOX_MANAGEMENT_URL',
    kind: 'url',
    default: 'https://api-manage-broadcast.sandbox.push.apple.com:2195',
    description: 'The same for sandbox apps: used when CLARION_APNS_URL is the sandbox (api.sandbox.push.apple.com).',
  },
  {
    key: 'apnsDeleteUnknownChannels',
    env: 'CLARION_APNS_DELETE_UNKNOWN_CHANNELS',
    kind: 'boolean',
    default: 'false',
    description:
      'true: the Live Activity channel sweeper (every 15 minutes) also deletes APNs broadcast channels of the bundle id that Clarion has no record of, 10 minutes after first seeing them: channels a Clarion process created just before it died, but also any another backend made for the same app. Only when Clarion alone uses the bundle id\'s channels. false: it deletes only the channels Clarion recorded, and logs how many others APNs lists (docs/live-activities.md, "Broadcast").',
  },
  {
    key: 'fcmServiceAccountFile',
    env: 'CLARION_FCM_SERVICE_ACCOUNT_FILE',
    kind: 'path',
    description:
      "FCM service-account JSON; its token_uri is used for the OAuth 2.0 token exchange, as written (service accounts that accounts upload must name Google's endpoint: docs/apps.md).",
  },
  {
    key: 'fcmUrl',
    env: 'CLARION_FCM_URL',
    kind: 'url',
    default: 'https://fcm.googleapis.com',
    description: 'FCM origin.',
  },
  {
    key: 'allowPrivateAddresses',
    env: 'CLARION_ALLOW_PRIVATE_ADDRESSES',
    kind: 'boolean',
    default: 'false',
    description:
      'Allow webhook URLs and Web Push subscription endpoints that resolve to private, loopback or link-local addresses, and any https token_uri in the service accounts that accounts upload (an on-premises push service, a receiver on the same network, tests on loopback). Off: only public addresses are reached, and an uploaded service account must name https://oauth2.googleapis.com/token.',
  },
  {
    key: 'allowPrivateWebhooks',
    env: 'CLARION_ALLOW_PRIVATE_WEBHOOKS',
    kind: 'boolean',
    default: 'false',
    description:
      'Older name of CLARION_ALLOW_PRIVATE_ADDRESSES, still accepted: true here has the same effect (webhooks, Web Push endpoints and uploaded token_uri).',
  },
  {
    key: 'vapidPublicKey',
    env: 'CLARION_VAPID_PUBLIC_KEY',
    kind: 'string',
    description:
      'Web Push VAPID public key (base64url, the 65-byte uncompressed P-256 point), with CLARION_VAPID_PRIVATE_KEY. Unset: a key pair is generated on first start and stored in the database, the private key encrypted with the secret key (docs/web-push.md).',
  },
  {
    key: 'vapidPrivateKey',
    env: 'CLARION_VAPID_PRIVATE_KEY',
    kind: 'string',
    description:
      'Web Push VAPID private key (base64url, 32 bytes), with CLARION_VAPID_PUBLIC_KEY; the format `npx web-push generate-vapid-keys` prints.',
  },
  {
    key: 'vapidSubject',
    env: 'CLARION_VAPID_SUBJECT',
    kind: 'string',
    description:
      'Contact sent to push services in the VAPID "sub" claim: a bare mailto: or https: URL (no spaces or angle brackets) not on localhost, since Apple\'s push service refuses those (Safari and iOS would get no pushes); one that is not stops the start. Unset: CLARION_BASE_URL when it is https, otherwise mailto:webpush@<its host>; derived from a localhost CLARION_BASE_URL it starts with a warning, and the dashboard says Safari will refuse it.',
  },
  {
    key: 'webhookRetrySchedule',
    env: 'CLARION_WEBHOOK_RETRY_SCHEDULE',
    kind: 'duration-list',
    default: '0s,5s,5m,30m,2h,5h,10h,14h,20h,24h',
    description:
      'Delays before each webhook delivery attempt (units ms, s, m, h, d); each retry waits up to a fifth longer, at random (jitter), so messages that failed together are not retried together.',
  },
  {
    key: 'webhookTimeout',
    env: 'CLARION_WEBHOOK_TIMEOUT',
    kind: 'duration',
    default: '15s',
    description:
      'How long one webhook delivery attempt may take (connect, send, first 1 KiB of the answer) before it counts as failed and is retried. The default is the least Standard Webhooks recommends (15–30 s).',
  },
  {
    key: 'trustProxy',
    env: 'CLARION_TRUST_PROXY',
    kind: 'string',
    description:
      'Reverse proxies in front of Clarion: comma-separated IP addresses or CIDR ranges, or loopback, linklocal, uniquelocal. Only from these are X-Forwarded-Proto (HTTPS: the session cookie gets Secure) and X-Forwarded-For (the client address that sign-in and publishable keys are rate-limited by) believed. Unset: both headers are ignored.',
  },
  {
    key: 'signup',
    env: 'CLARION_SIGNUP',
    kind: 'enum',
    values: ['open', 'closed'],
    default: 'closed',
    description:
      "closed: accounts are created with the CLI (`clarion accounts create`), except that an instance with no account at all lets the dashboard create the first one (the operator's); open: anyone who can reach the instance may create a Free account that sends through its push credentials.",
  },
  {
    key: 'requireOwnApp',
    env: 'CLARION_REQUIRE_OWN_APP',
    kind: 'boolean',
    default: 'false',
    description:
      'true: an account must create an app with its own credentials (docs/apps.md) before it may send; its channels never fall back to the built-in default app of CLARION_APNS_* / CLARION_FCM_*. For CLARION_SIGNUP=open instances that host many teams.',
  },
  {
    key: 'rateLimitPerSecond',
    env: 'CLARION_RATE_LIMIT_PER_SECOND',
    kind: 'integer',
    default: '50',
    min: 1,
    max: 100000,
    description:
      'Sustained API requests per second allowed per secret API key or dashboard session (token bucket refill rate).',
  },
  {
    key: 'rateLimitBurst',
    env: 'CLARION_RATE_LIMIT_BURST',
    kind: 'integer',
    default: '100',
    min: 1,
    max: 100000,
    description:
      'Requests one secret API key or dashboard session may make at once before the per-second rate applies (token bucket size).',
  },
  {
    key: 'publishableRateLimitPerAddress',
    env: 'CLARION_PUBLISHABLE_RATE_LIMIT_PER_ADDRESS',
    kind: 'integer',
    default: '5',
    min: 1,
    max: 100000,
    description:
      "Sustained requests per second allowed per publishable key from one client address (one install of the app). A publishable key ships inside an app and is shared by every install, so it is limited per (key, address), not per key alone. Behind a proxy, set CLARION_TRUST_PROXY so the address is the client's.",
  },
  {
    key: 'publishableRateLimitBurst',
    env: 'CLARION_PUBLISHABLE_RATE_LIMIT_BURST',
    kind: 'integer',
    default: '20',
    min: 1,
    max: 100000,
    description:
      'Requests one client address may make at once with a publishable key before its per-second rate applies.',
  },
  {
    key: 'publishableRateLimit',
    env: 'CLARION_PUBLISHABLE_RATE_LIMIT',
    kind: 'integer',
    default: '1000',
    min: 1,
    max: 1000000,
    description:
      "Ceiling per publishable key over all client addresses: sustained requests per second, with bursts of ten seconds' worth (default 10,000 at once), so thousands of devices opening the app together are not refused.",
  },
  {
    key: 'workerConcurrency',
    env: 'CLARION_WORKER_CONCURRENCY',
    kind: 'integer',
    default: '2',
    min: 1,
    max: 1000,
    description:
      'Jobs one worker process runs at once. A send job pushes up to 500 tokens over concurrent HTTP/2 streams, so 2 jobs keep up to 1,000 pushes in flight: enough for 10,000 pushes/s at 50 ms per answer. Measured on 2 cores (docs/performance.md, "Levers tried and not kept"), 2 spent the least CPU and memory per push; 4 and 8 spent more of both and sent no faster.',
  },
  {
    key: 'jobLease',
    env: 'CLARION_JOB_LEASE',
    kind: 'duration',
    default: '60s',
    description:
      'How long a claimed job belongs to its worker without a heartbeat (renewed every third of it). A worker that dies holds its jobs this long before the rescuer hands them to another.',
  },
  {
    key: 'workerThread',
    env: 'CLARION_WORKER_THREAD',
    kind: 'boolean',
    default: 'false',
    description:
      'When one `clarion serve` runs both the API and the worker, run the worker on a thread of its own (its own event loop and database connection) instead of beside the API on one event loop. Measured in docs/performance.md, "The worker thread": beside a 100,000-subscriber fan-out, accept p99 11–17 ms with the thread (SQLite) against 64–84 ms on one loop; the thread adds about 0.5 s to start-up and 50 MiB of idle memory, and on SQLite the worker falls behind sooner under many small notifications (500 a second: first-push p99 0.4–1.4 s against 66 ms).',
  },
  {
    key: 'receiptRetention',
    env: 'CLARION_RECEIPT_RETENTION',
    kind: 'duration',
    default: '90d',
    description:
      'How long the receipts of a notification are kept (docs/engagement.md, "Privacy"): past it, what its subscribers reported is deleted (its counts stay) and a report that arrives later is answered `expired` and not counted.',
  },
  {
    key: 'queuePollInterval',
    env: 'CLARION_QUEUE_POLL_INTERVAL',
    kind: 'duration',
    default: '1s',
    description:
      'How often an idle worker looks for due jobs (scheduled ones, or enqueued by another process without a wake-up).',
  },
  {
    key: 'metricsToken',
    env: 'CLARION_METRICS_TOKEN',
    kind: 'string',
    description:
      'When set, GET /metrics on the main port serves the Prometheus metrics to requests with `Authorization: Bearer <this token>` and refuses others (401). Unset: /metrics does not exist on the main port. At least 16 characters; use a long random value (e.g. `openssl rand -hex 32`). See docs/ops.md.',
  },
  {
    key: 'metricsPort',
    env: 'CLARION_METRICS_PORT',
    kind: 'port',
    description:
      'The port of a separate listener that serves GET /metrics without a token, bound to CLARION_METRICS_HOST (127.0.0.1 by default). Every role serves it, so a `serve --worker` process can be scraped too. Unset: 9464 when that port is free; when it is taken (another clarion on the same host) the process starts without the listener and logs a warning. A port set here that is taken stops start-up. 0: any free port (logged).',
  },
  {
    key: 'metricsHost',
    env: 'CLARION_METRICS_HOST',
    kind: 'string',
    default: '127.0.0.1',
    description:
      'Address the CLARION_METRICS_PORT listener binds to. The default keeps the metrics on the machine; in a container, bind 0.0.0.0 only on a network that the public cannot reach.',
  },
  {
    key: 'logLevel',
    env: 'CLARION_LOG_LEVEL',
    kind: 'enum',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    description: 'pino log level.',
  },
] as const satisfies readonly OptionDeclaration[];

/**
 * The parsed value of one option: numbers for ports, integers and durations (milliseconds), a list of milliseconds for
 * duration lists, the allowed words for an enum, text otherwise; undefined when unset and without a default.
 */
type OptionValue<O extends OptionDeclaration> =
  | (O extends { kind: 'port' | 'integer' | 'duration' }
      ? number
      : O extends { kind: 'duration-list' }
        ? number[]
        : O extends { kind: 'boolean' }
          ? boolean
          : O extends { kind: 'enum'; values: readonly (infer V)[] }
            ? V
            : string)
  | (O extends { default: string } ? never : undefined);

/** The parsed configuration, one key per declared option (src/config/load-config.ts builds it). */
export type ConfigOf<Options extends readonly OptionDeclaration[]> = {
  -readonly [O in Options[number] as O['key']]: OptionValue<O>;
};
