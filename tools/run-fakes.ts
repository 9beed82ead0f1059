import { createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type ApnsSigningKey,
  type FcmServiceAccount,
  type ServiceAccountJson,
  createApnsSigningKey,
  createFcmServiceAccount,
  ensureFakeTls,
  startFakeApns,
  startFakeFcm,
  startFakeWebPush,
  writeCredentialFile,
} from './fakes/index.ts';

/**
 * Runs the fake APNs and FCM servers and the fake Web Push service until SIGINT/SIGTERM, for trying Clarion by hand
 * without Apple, Google or a browser:
 *
 *   npm run fakes                      # in one terminal
 *   source .cache/fakes/env.sh && npm start   # in another
 *
 * Prints the environment that points Clarion at the fakes (also written to <dir>/env.sh): Clarion's own options and
 * NODE_EXTRA_CA_CERTS, nothing else, after a comment with the fake Web Push service's address. Credentials are kept in
 * <dir> and reused on the next start, so the printed values stay the same across restarts on the same ports.
 * A browser subscription for the fake Web Push service: `curl -sk -X POST https://127.0.0.1:8444/subscriptions -d
 * '{"applicationServerKey": "<GET /api/v1/web-push/public-key>"}'`, registered with `platform: "web"`; each push it
 * receives is logged decrypted. The fake listens on loopback, hence CLARION_ALLOW_PRIVATE_ADDRESSES=true in the env.
 */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const { values: flags } = parseArgs({
  options: {
    host: { type: 'string', default: process.env.CLARION_FAKES_HOST ?? '127.0.0.1' },
    // 2197: APNs' documented alternative port (docs/protocols.md 1.1), unprivileged, so no root needed.
    'apns-port': { type: 'string', default: process.env.CLARION_FAKE_APNS_PORT ?? '2197' },
    'apns-sandbox-port': { type: 'string', default: process.env.CLARION_FAKE_APNS_SANDBOX_PORT ?? '2198' },
    'apns-management-port': { type: 'string', default: process.env.CLARION_FAKE_APNS_MANAGEMENT_PORT ?? '2196' },
    'fcm-port': { type: 'string', default: process.env.CLARION_FAKE_FCM_PORT ?? '8443' },
    'web-push-port': { type: 'string', default: process.env.CLARION_FAKE_WEB_PUSH_PORT ?? '8444' },
    'apns-topic': { type: 'string', default: process.env.CLARION_FAKE_APNS_TOPIC ?? 'com.example.clarion' },
    'fcm-project': { type: 'string', default: process.env.CLARION_FAKE_FCM_PROJECT ?? 'clarion-local' },
    dir: { type: 'string', default: process.env.CLARION_FAKES_DIR ?? join(repoRoot, '.cache/fakes') },
    quiet: { type: 'boolean', default: false },
    // Simulated provider latency per answer, e.g. 35 or 20-50 (ms, uniform): real APNs/FCM answer in tens of ms, so a
    // sender must keep hundreds of streams in flight to reach 10,000 pushes/s (docs/performance.md, "Fan-out CPU per push").
    latency: { type: 'string', default: process.env.CLARION_FAKE_LATENCY ?? '0' },
    // Keep no request records (the fakes' memory stays flat over millions of pushes); counts go to stderr on exit.
    forget: { type: 'boolean', default: false },
    // For the benchmarks (bench/harness/fakes-process.ts): after the exports, `PUSH <notification id> <epoch ms>` on
    // stdout the first time any device receives a notification, and `COUNT <pushes so far>` every second.
    'report-pushes': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (flags.help) {
  process.stdout.write(
    'Usage: tsx tools/run-fakes.ts [--host 127.0.0.1] [--apns-port 2197] [--apns-sandbox-port 2198] [--apns-management-port 2196] [--fcm-port 8443] [--web-push-port 8444] [--apns-topic com.example.clarion]\n' +
      '                              [--fcm-project clarion-local] [--dir .cache/fakes] [--quiet] [--latency MS|MIN-MAX] [--forget] [--report-pushes]\n' +
      'Env: CLARION_FAKES_HOST, CLARION_FAKE_APNS_PORT, CLARION_FAKE_APNS_SANDBOX_PORT, CLARION_FAKE_APNS_MANAGEMENT_PORT, CLARION_FAKE_FCM_PORT, CLARION_FAKE_WEB_PUSH_PORT, CLARION_FAKE_APNS_TOPIC, CLARION_FAKE_FCM_PROJECT,\n' +
      '     CLARION_FAKES_DIR, CLARION_FAKE_LATENCY\n',
  );
  process.exit(0);
}

const dir = resolve(flags.dir);
const apnsKeyPath = join(dir, 'apns-auth-key.p8');
const apnsIdsPath = join(dir, 'apns-auth-key.json');
const serviceAccountPath = join(dir, 'fcm-service-account.json');

const tls = ensureFakeTls();
const apnsKey = loadApnsKey() ?? createApnsSigningKey();
writeCredentialFile(apnsKeyPath, apnsKey);
writeFileSync(apnsIdsPath, `${JSON.stringify({ keyId: apnsKey.keyId, teamId: apnsKey.teamId }, null, 2)}\n`);

const keepRequests = !flags.forget;
// Every Clarion process signs its own provider token of the key (one per key and process), and the benchmarks and a
// hand-run instance restarted at will are several processes: the fakes take each one's token instead of holding the
// key to one new token per 20 minutes (tools/fakes/apns/apns-provider-token.ts).
const providerTokenMinRefreshSeconds = 0;
const apns = await startFakeApns({
  host: flags.host,
  port: port(flags['apns-port']),
  managementPort: port(flags['apns-management-port']),
  keys: [apnsKey],
  topics: [flags['apns-topic']],
  keepRequests,
  environment: 'production',
  providerTokenMinRefreshSeconds,
});
// Apple's sandbox host beside it, with the same key and the same issued tokens (tools/fakes/apns/apns-devices.ts).
const apnsSandbox = await startFakeApns({
  host: flags.host,
  port: port(flags['apns-sandbox-port']),
  keys: [apnsKey],
  topics: [flags['apns-topic']],
  keepRequests,
  environment: 'sandbox',
  devices: apns.devices,
  keyTokens: apns.keyTokens,
  providerTokenMinRefreshSeconds,
});
const fcm = await startFakeFcm({ host: flags.host, port: port(flags['fcm-port']), keepRequests });
const webPush = await startFakeWebPush({ host: flags.host, port: port(flags['web-push-port']) });
const latency = latencyRange(flags.latency);
if (latency) {
  const [min, max] = latency;
  apns.setLatency(() => min + Math.random() * (max - min));
  fcm.setLatency((request) => (request.endpoint === 'send' ? min + Math.random() * (max - min) : 0));
  webPush.setLatency(() => min + Math.random() * (max - min));
}
const answered = { apns: 0, fcm: 0, webPush: 0 };
apns.onRequest(() => (answered.apns += 1));
apnsSandbox.onRequest(() => (answered.apns += 1));
fcm.onRequest(() => (answered.fcm += 1));
webPush.onMessage(() => (answered.webPush += 1));
// token_uri must name this run's port, so the service account file is rewritten on each start (same key).
const existing = loadServiceAccount();
const account: FcmServiceAccount = existing
  ? { json: { ...existing.json, token_uri: fcm.tokenUri }, publicKey: existing.publicKey }
  : createFcmServiceAccount({ projectId: flags['fcm-project'], tokenUri: fcm.tokenUri });
fcm.addServiceAccount(account);
writeCredentialFile(serviceAccountPath, account);

const env: Record<string, string> = {
  CLARION_APNS_URL: apns.url,
  CLARION_APNS_SANDBOX_URL: apnsSandbox.url,
  CLARION_APNS_MANAGEMENT_URL: apns.managementUrl,
  CLARION_APNS_KEY_FILE: apnsKeyPath,
  CLARION_APNS_KEY_ID: apnsKey.keyId,
  CLARION_APNS_TEAM_ID: apnsKey.teamId,
  CLARION_APNS_TOPIC: flags['apns-topic'],
  CLARION_FCM_URL: fcm.url,
  CLARION_FCM_SERVICE_ACCOUNT_FILE: serviceAccountPath,
  // The fake Web Push service is on loopback, which the SSRF guard refuses otherwise.
  CLARION_ALLOW_PRIVATE_ADDRESSES: 'true',
  NODE_EXTRA_CA_CERTS: tls.caCertPath,
};
// Only what Clarion and Node read is exported. Where a script or a person makes a browser's subscription is a
// comment before them (harmless when the lines are pasted or sourced); bench/harness/fakes-process.ts reads it.
const lines = [
  `# fake Web Push service: ${webPush.url} (POST /subscriptions makes a browser's subscription)`,
  ...Object.entries(env).map(([name, value]) => `export ${name}=${shellQuote(value)}`),
];
writeFileSync(join(dir, 'env.sh'), `${lines.join('\n')}\n`);
process.stdout.write(`${lines.join('\n')}\n`);
if (flags['report-pushes']) reportPushes();
process.stderr.write(
  `fake APNs on ${apns.url} (channel management on ${apns.managementUrl}), fake FCM on ${fcm.url} (project ${account.json.project_id}), fake Web Push on ${webPush.url} (POST /subscriptions); env written to ${join(dir, 'env.sh')}. Ctrl-C stops.\n`,
);

if (!flags.quiet) {
  apnsSandbox.onRequest((r) =>
    log(
      `APNs sandbox ${r.status} ${r.reason ?? 'OK'} ${r.method} ${r.path} topic=${r.topic ?? '-'} type=${r.pushType ?? '-'}`,
    ),
  );
  apns.onRequest((r) =>
    log(`APNs ${r.status} ${r.reason ?? 'OK'} ${r.method} ${r.path} topic=${r.topic ?? '-'} type=${r.pushType ?? '-'}`),
  );
  fcm.onTokenRequest((r) => log(`FCM token ${r.status} ${r.error ?? 'OK'} iss=${r.claims?.iss ?? '-'}`));
  fcm.onRequest((r) =>
    log(`FCM send ${r.status} ${r.errorCode ?? 'OK'} ${r.target ? `${r.target.kind}=${r.target.value}` : '-'}`),
  );
  webPush.onMessage((r) =>
    log(
      `Web Push ${r.status} ${r.reason ?? 'OK'} ${r.subscriptionId ?? '-'} TTL=${r.ttl ?? '-'} ${r.clearText ?? r.decryptError ?? ''}`,
    ),
  );
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(
      `fakes answered ${answered.apns} APNs, ${answered.fcm} FCM and ${answered.webPush} Web Push pushes\n`,
    );
    Promise.all([apns.close(), apnsSandbox.close(), fcm.close(), webPush.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

/** The --report-pushes lines; a notification is known by its APNs collapse id or its FCM Android tag. */
function reportPushes(): void {
  let pushes = 0;
  const seen = new Set<string>();
  const firstPush = (notificationId: string | null | undefined) => {
    pushes += 1;
    if (!notificationId || seen.has(notificationId)) return;
    seen.add(notificationId);
    process.stdout.write(`PUSH ${notificationId} ${Date.now()}\n`);
  };
  apns.onRequest((request) => firstPush(request.collapseId));
  fcm.onRequest((request) =>
    firstPush(
      (request.message as { android?: { notification?: { tag?: string } } } | null)?.android?.notification?.tag,
    ),
  );
  setInterval(() => process.stdout.write(`COUNT ${pushes}\n`), 1000).unref();
}

function loadApnsKey(): ApnsSigningKey | null {
  if (!existsSync(apnsKeyPath) || !existsSync(apnsIdsPath)) return null;
  try {
    const privateKeyPem = readFileSync(apnsKeyPath, 'utf8');
    const ids = JSON.parse(readFileSync(apnsIdsPath, 'utf8')) as { keyId: string; teamId: string };
    return {
      keyId: ids.keyId,
      teamId: ids.teamId,
      privateKeyPem,
      publicKey: createPublicKey(createPrivateKey(privateKeyPem)),
    };
  } catch {
    return null;
  }
}

function loadServiceAccount(): FcmServiceAccount | null {
  if (!existsSync(serviceAccountPath)) return null;
  try {
    const json = JSON.parse(readFileSync(serviceAccountPath, 'utf8')) as ServiceAccountJson;
    if (json.project_id !== flags['fcm-project']) return null;
    return { json, publicKey: createPublicKey(createPrivateKey(json.private_key)) };
  } catch {
    return null;
  }
}

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) throw new Error(`not a port: ${value}`);
  return parsed;
}

/** "35" → [35, 35], "20-50" → [20, 50], "0" → null. */
function latencyRange(value: string): [number, number] | null {
  const match = /^(\d+)(?:-(\d+))?$/.exec(value.trim());
  if (!match) throw new Error(`--latency: not MS or MIN-MAX: ${value}`);
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (max < min) throw new Error(`--latency: ${max} is below ${min}`);
  return max === 0 ? null : [min, max];
}

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}
