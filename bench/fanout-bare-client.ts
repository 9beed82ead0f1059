// The yardstick of the fan-out's CPU per push: a bare node:http2 client sending the same pushes Clarion sends for one
// notification to the same fakes — APNs alert requests with the same headers and body, FCM v1 messages with the same
// fields, to the same tokens (bench/harness/fanout-channel.ts benchDevice) — with one signed JWT and one OAuth token, no database and
// no bookkeeping. Its CPU per push is the floor Clarion's is compared with (bench/fanout-cpu.ts).
//
//   node --import tsx bench/fanout-bare-client.ts [--count 20000] [--latency 20-50] [--quick]
//
// With the fakes' CLARION_* variables and NODE_EXTRA_CA_CERTS set (as bench/fanout-cpu.ts runs it) it uses those fakes;
// without them it starts its own (tools/run-fakes.ts) first.
//
// Prints one line: BENCH_RESULT {"pushes", "ok", "seconds", "cpuMs", "cpuUsPerPush"}; CPU counted from the first request to the
// last answer (start-up and token fetching excluded, as the worker's start-up is excluded from Clarion's figure).
import { spawnSync } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { benchDevice } from './harness/fanout-channel.ts';
import { startFakes } from './harness/fakes-process.ts';
import { printBenchResult } from './harness/bench-result.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '20000' },
    latency: { type: 'string', default: '20-50' },
    quick: { type: 'boolean', default: false },
  },
});
if (!process.env.CLARION_APNS_URL) {
  // Run alone: start the fakes in their own process and run again with their environment (their CA must be trusted
  // from the start of the process).
  const fakes = await startFakes({ latency: values.latency! });
  const rerun = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, ...fakes.env },
  });
  await fakes.stop();
  process.exit(rerun.status ?? 1);
}
const count = values.quick ? 2000 : Number(values.count);
const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run with the fakes' environment (tools/run-fakes.ts)`);
  return value;
};

const apnsJwt = await new SignJWT({})
  .setProtectedHeader({ alg: 'ES256', kid: env('CLARION_APNS_KEY_ID') })
  .setIssuer(env('CLARION_APNS_TEAM_ID'))
  .setIssuedAt()
  .sign(createPrivateKey(readFileSync(env('CLARION_APNS_KEY_FILE'), 'utf8')));
const account = JSON.parse(readFileSync(env('CLARION_FCM_SERVICE_ACCOUNT_FILE'), 'utf8')) as {
  client_email: string;
  private_key: string;
  token_uri: string;
  project_id: string;
};
const assertion = await new SignJWT({ scope: 'https://www.googleapis.com/auth/firebase.messaging' })
  .setProtectedHeader({ alg: 'RS256' })
  .setIssuer(account.client_email)
  .setAudience(account.token_uri)
  .setIssuedAt()
  .setExpirationTime('1h')
  .sign(createPrivateKey(account.private_key));
const tokenAnswer = await fetch(account.token_uri, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
});
const accessToken = ((await tokenAnswer.json()) as { access_token: string }).access_token;

const notificationId = 'ntf_01bench0000000000000000000';
const apnsBody = JSON.stringify({
  aps: { alert: { title: 'Bench', body: 'Fan-out benchmark' }, 'thread-id': 'bench' },
});
const apnsHeaders = {
  ':method': 'POST',
  'apns-push-type': 'alert',
  'apns-topic': env('CLARION_APNS_TOPIC'),
  'apns-priority': '10',
  'apns-collapse-id': notificationId,
  'apns-expiration': String(Math.floor(Date.now() / 1000) + 30 * 24 * 3600),
  authorization: `bearer ${apnsJwt}`,
};
const fcmPath = `/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`;
const fcmHeaders = {
  ':method': 'POST',
  ':path': fcmPath,
  authorization: `Bearer ${accessToken}`,
  'content-type': 'application/json; charset=utf-8',
};

const apns = await connect(env('CLARION_APNS_URL'));
const fcm = await connect(env('CLARION_FCM_URL'));

function connect(url: string): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.once('remoteSettings', () => resolve(session));
    session.once('error', reject);
  });
}

function send(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers);
    let status = 0;
    stream.on('response', (response) => (status = Number(response[':status'])));
    stream.on('data', () => {});
    stream.on('error', reject);
    stream.on('close', () => resolve(status));
    stream.end(body);
  });
}

/** Sends pushes `indexes` over `lanes` concurrent streams; resolves with how many got a 200. */
async function sendAll(indexes: number[], lanes: number, sendOne: (n: number) => Promise<number>): Promise<number> {
  let next = 0;
  let ok = 0;
  const lane = async () => {
    while (next < indexes.length) {
      const n = indexes[next]!;
      next += 1;
      if ((await sendOne(n)) === 200) ok += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, indexes.length) }, lane));
  return ok;
}

const ios: number[] = [];
const android: number[] = [];
for (let n = 0; n < count; n += 1) (benchDevice(n).platform === 'ios' ? ios : android).push(n);

// APNs answers its SETTINGS of 500 streams once the first request authenticated; one request first, as Clarion's pool does.
await send(apns, { ...apnsHeaders, ':path': `/3/device/${benchDevice(ios[0]!).token}` }, apnsBody);
const cpuBefore = process.cpuUsage();
const started = performance.now();
const [iosOk, androidOk] = await Promise.all([
  sendAll(ios, 500, (n) => send(apns, { ...apnsHeaders, ':path': `/3/device/${benchDevice(n).token}` }, apnsBody)),
  sendAll(android, 500, (n) =>
    send(
      fcm,
      fcmHeaders,
      JSON.stringify({
        message: {
          token: benchDevice(n).token,
          notification: { title: 'Bench', body: 'Fan-out benchmark' },
          android: { priority: 'HIGH', notification: { tag: notificationId } },
        },
      }),
    ),
  ),
]);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;
apns.close();
fcm.close();
printBenchResult({
  pushes: count,
  ok: iosOk + androidOk,
  seconds: Number(seconds.toFixed(3)),
  cpuMs: Math.round(cpuMs),
  cpuUsPerPush: Number(((cpuMs * 1000) / count).toFixed(1)),
});
