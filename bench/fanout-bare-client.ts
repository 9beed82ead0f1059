// The yardstick of the fan-out's CPU per push: a bare node:http2 client sending the same pushes Clarion sends for one
// notification to the same fakes, with no database and no bookkeeping. Its CPU per push is the floor Clarion's is
// compared with (bench/fanout-cpu.ts).
//
// - APNs and FCM (the default): APNs alert requests with the same headers and body, FCM v1 messages with the same
//   fields, to the same tokens (bench/harness/fanout-channel.ts benchDevice), with one signed JWT and one OAuth token.
// - Web Push (`--web-subscriptions FILE`, a JSON array of the channel's PushSubscription JSON): one push to each, the
//   same clear text size as Clarion's, written here from the RFCs with node:crypto and node:http2 alone, no code shared
//   with Clarion's sender (src/delivery/web-push/): RFC 8291 aes128gcm encryption with a fresh P-256 key pair per
//   message, and one VAPID JWT (RFC 8292) per push-service origin, signed up front with CLARION_VAPID_PUBLIC_KEY,
//   CLARION_VAPID_PRIVATE_KEY and CLARION_VAPID_SUBJECT (the pair the subscriptions were made with). Like Clarion's
//   HTTP/2 pool (src/delivery/web-push/web-push-client.ts): two connections per origin, 200 pushes in flight.
//
//   node --import tsx bench/fanout-bare-client.ts [--count 20000] [--latency 20-50] [--quick]
//   node --import tsx bench/fanout-bare-client.ts --web-subscriptions FILE        # with the fakes' environment
//
// With the fakes' CLARION_* variables and NODE_EXTRA_CA_CERTS set (as bench/fanout-cpu.ts runs it) it uses those fakes;
// without them it starts its own (tools/run-fakes.ts) first (APNs and FCM only: web subscriptions belong to the fakes
// they were made at).
//
// Prints one line: BENCH_RESULT {"pushes", "ok", "seconds", "cpuMs", "cpuUsPerPush"}; `ok` counts the answers that
// mean delivered (200 from APNs and FCM, 201 from a push service). CPU counted from the first request to the last
// answer: start-up, token fetching and a first push (to APNs, on each Web Push connection) are excluded, as the
// worker's start-up is excluded from Clarion's figure.
import { spawnSync } from 'node:child_process';
import { createCipheriv, createECDH, createHmac, createPrivateKey, randomBytes, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { createSimulatedBrowser } from '../tools/fakes/web-push/web-push-browser.ts';
import { benchDevice } from './harness/fanout-channel.ts';
import { startFakes } from './harness/fakes-process.ts';
import { printBenchResult } from './harness/bench-result.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '20000' },
    latency: { type: 'string', default: '20-50' },
    'web-subscriptions': { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const webSubscriptionsFile = values['web-subscriptions'];
if (!process.env.CLARION_APNS_URL) {
  if (webSubscriptionsFile)
    throw new Error(
      '--web-subscriptions needs the fakes the subscriptions were made at (run it as fanout-cpu.ts does)',
    );
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
const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run with the fakes' environment (tools/run-fakes.ts)`);
  return value;
};
const notificationId = 'ntf_01bench0000000000000000000';

interface Sent {
  pushes: number;
  ok: number;
  seconds: number;
  cpuMs: number;
}

async function sendToApnsAndFcm(count: number): Promise<Sent> {
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
  const ios: number[] = [];
  const android: number[] = [];
  for (let n = 0; n < count; n += 1) (benchDevice(n).platform === 'ios' ? ios : android).push(n);

  // APNs answers its SETTINGS of 500 streams once the first request authenticated; one request first, as Clarion's pool does.
  await send(apns, { ...apnsHeaders, ':path': `/3/device/${benchDevice(ios[0]!).token}` }, apnsBody);
  const measured = await measure(async () => {
    const [iosOk, androidOk] = await Promise.all([
      sendAll(ios, 500, 200, (n) =>
        send(apns, { ...apnsHeaders, ':path': `/3/device/${benchDevice(n).token}` }, apnsBody),
      ),
      sendAll(android, 500, 200, (n) =>
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
    return iosOk + androidOk;
  });
  apns.close();
  fcm.close();
  return { pushes: count, ...measured };
}

/** A browser's push subscription, as the page registers it (PushSubscription.toJSON()). */
interface WebSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** HTTP/2 connections per push-service origin and streams on each: 200 in flight, as Clarion's pool allows. */
const WEB_SESSIONS_PER_ORIGIN = 2;
const WEB_STREAMS_PER_SESSION = 100;
/** RFC 8030 §5.2: how long the service keeps an undelivered push; 28 days, the most Clarion sends. */
const WEB_TTL_SECONDS = 28 * 24 * 3600;
const VAPID_LIFETIME_SECONDS = 12 * 3600;

async function sendWebPushes(file: string): Promise<Sent> {
  const subscriptions = (JSON.parse(readFileSync(file, 'utf8')) as WebSubscription[]).map((subscription) => {
    const endpoint = new URL(subscription.endpoint);
    return {
      origin: endpoint.origin,
      path: `${endpoint.pathname}${endpoint.search}`,
      p256dh: Buffer.from(subscription.keys.p256dh, 'base64url'),
      auth: Buffer.from(subscription.keys.auth, 'base64url'),
    };
  });
  // What Clarion encrypts for the bench's notification (src/delivery/web-push/web-push-message.ts, with the receipt of
  // src/delivery/receipt-member.ts), written out: the same shape and size, one buffer for every push.
  const clearText = Buffer.from(
    JSON.stringify({
      clarionReceipt: `n${'0'.repeat(74)}`,
      web_push: 8030,
      notification: {
        title: 'Bench',
        body: 'Fan-out benchmark',
        navigate: 'http://localhost:3000/',
        tag: notificationId,
        data: { clarion: true, url: null },
      },
      mutable: true,
    }),
  );
  // A push service cannot read a message, so a wrong encryption would still be answered 201 (the fake too,
  // tests/tools/web-push-fake.test.ts): the encryption is checked once here, decrypted as a browser does
  // (tools/fakes/web-push/web-push-decrypt.ts). VAPID the fake does check: a wrong JWT is answered 401 or 403.
  const browser = createSimulatedBrowser();
  const check = encryptForBrowser(
    clearText,
    Buffer.from(browser.p256dh, 'base64url'),
    Buffer.from(browser.auth, 'base64url'),
  );
  if (!browser.decrypt(check).equals(clearText)) throw new Error('the bare Web Push encryption does not round-trip');

  const signingKey = vapidSigningKey(env('CLARION_VAPID_PUBLIC_KEY'), env('CLARION_VAPID_PRIVATE_KEY'));
  const lanes: Array<{ session: http2.ClientHttp2Session; headers: http2.OutgoingHttpHeaders; indexes: number[] }> = [];
  for (const origin of new Set(subscriptions.map((subscription) => subscription.origin))) {
    const headers = {
      ':method': 'POST',
      ttl: String(WEB_TTL_SECONDS),
      'content-encoding': 'aes128gcm',
      authorization: vapidAuthorization(origin, signingKey),
    };
    const indexes = subscriptions.flatMap((subscription, index) => (subscription.origin === origin ? [index] : []));
    for (let session = 0; session < WEB_SESSIONS_PER_ORIGIN; session += 1)
      lanes.push({
        session: await connect(origin),
        headers,
        indexes: indexes.filter((_, position) => position % WEB_SESSIONS_PER_ORIGIN === session),
      });
  }
  const push = (lane: (typeof lanes)[number], index: number): Promise<number> => {
    const subscription = subscriptions[index]!;
    return send(
      lane.session,
      { ...lane.headers, ':path': subscription.path },
      encryptForBrowser(clearText, subscription.p256dh, subscription.auth),
    );
  };
  // One push per connection first, not counted: its TLS, its SETTINGS and the first run of every step.
  for (const lane of lanes) {
    const status = await push(lane, lane.indexes[0]!);
    if (status !== 201) throw new Error(`the push service answered ${status} to the first push`);
  }
  const measured = await measure(async () => {
    const oks = await Promise.all(
      lanes.map((lane) => sendAll(lane.indexes, WEB_STREAMS_PER_SESSION, 201, (index) => push(lane, index))),
    );
    return oks.reduce((sum, ok) => sum + ok, 0);
  });
  for (const lane of lanes) lane.session.close();
  return { pushes: subscriptions.length, ...measured };
}

const KEY_INFO = Buffer.from('WebPush: info\0', 'latin1');
const CEK_INFO = Buffer.from('Content-Encoding: aes128gcm\0\x01', 'latin1');
const NONCE_INFO = Buffer.from('Content-Encoding: nonce\0\x01', 'latin1');
const RECORD_SIZE = 4096;

/**
 * RFC 8291 §3–4 (https://www.rfc-editor.org/rfc/rfc8291#section-3) on RFC 8188 §2
 * (https://www.rfc-editor.org/rfc/rfc8188#section-2): one record, no padding. Every HKDF here asks for at most 32
 * bytes, so HKDF-Expand is one HMAC-SHA-256 of the info and the byte 0x01.
 */
function encryptForBrowser(clear: Buffer, uaPublic: Buffer, authSecret: Buffer): Buffer {
  const hmac = (key: Buffer, data: Buffer): Buffer => createHmac('sha256', key).update(data).digest();
  const sender = createECDH('prime256v1');
  const asPublic = sender.generateKeys();
  const salt = randomBytes(16);
  // IKM = HKDF(auth_secret, ecdh_secret, "WebPush: info" || 0x00 || ua_public || as_public, 32)
  const ikm = hmac(
    hmac(authSecret, sender.computeSecret(uaPublic)),
    Buffer.concat([KEY_INFO, uaPublic, asPublic, Buffer.of(1)]),
  );
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, CEK_INFO).subarray(0, 16);
  const nonce = hmac(prk, NONCE_INFO).subarray(0, 12);
  // The header: salt (16) ‖ record size (4) ‖ key id length (1) ‖ key id, the sender's public key (65): 86 bytes.
  const header = Buffer.alloc(86);
  salt.copy(header, 0);
  header.writeUInt32BE(RECORD_SIZE, 16);
  header[20] = asPublic.length;
  asPublic.copy(header, 21);
  const cipher = createCipheriv('aes-128-gcm', cek, nonce);
  // The record: the clear text, then the last record's delimiter 0x02, sealed; then the 16-byte tag.
  return Buffer.concat([
    header,
    cipher.update(clear),
    cipher.update(Buffer.of(2)),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
}

/** RFC 8292 §2–3 (https://www.rfc-editor.org/rfc/rfc8292#section-3): `vapid t=<ES256 JWT>, k=<public key>`. */
function vapidAuthorization(
  origin: string,
  key: { publicKey: string; privateKey: ReturnType<typeof createPrivateKey> },
) {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = {
    aud: origin,
    exp: Math.floor(Date.now() / 1000) + VAPID_LIFETIME_SECONDS,
    sub: env('CLARION_VAPID_SUBJECT'),
  };
  const signed = `${part({ typ: 'JWT', alg: 'ES256' })}.${part(claims)}`;
  // ES256's signature is r ‖ s, 32 bytes each (RFC 7518 §3.4), not DER.
  const signature = sign('sha256', Buffer.from(signed), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `vapid t=${signed}.${signature.toString('base64url')}, k=${key.publicKey}`;
}

/** The VAPID pair (base64url: the uncompressed public point, the private scalar) as a signing key. */
function vapidSigningKey(publicKey: string, privateKey: string) {
  const point = Buffer.from(publicKey, 'base64url');
  const x = point.subarray(1, 33).toString('base64url');
  const y = point.subarray(33, 65).toString('base64url');
  return {
    publicKey,
    privateKey: createPrivateKey({ key: { kty: 'EC', crv: 'P-256', d: privateKey, x, y }, format: 'jwk' }),
  };
}

/** This process's CPU and the wall time while `work` runs; `work` resolves with how many pushes were delivered. */
async function measure(work: () => Promise<number>): Promise<Omit<Sent, 'pushes'>> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const ok = await work();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { ok, seconds, cpuMs: (cpu.user + cpu.system) / 1000 };
}

function connect(url: string): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.once('remoteSettings', () => resolve(session));
    session.once('error', reject);
  });
}

function send(
  session: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  body: string | Buffer,
): Promise<number> {
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

/** Sends pushes `indexes` over `lanes` concurrent streams; resolves with how many were answered `okStatus`. */
async function sendAll(
  indexes: number[],
  lanes: number,
  okStatus: number,
  sendOne: (n: number) => Promise<number>,
): Promise<number> {
  let next = 0;
  let ok = 0;
  const lane = async () => {
    while (next < indexes.length) {
      const n = indexes[next]!;
      next += 1;
      if ((await sendOne(n)) === okStatus) ok += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, indexes.length) }, lane));
  return ok;
}

// Last, once every constant above is set.
const sent = webSubscriptionsFile
  ? await sendWebPushes(webSubscriptionsFile)
  : await sendToApnsAndFcm(values.quick ? 2000 : Number(values.count));
printBenchResult({
  ...sent,
  seconds: Number(sent.seconds.toFixed(3)),
  cpuMs: Math.round(sent.cpuMs),
  cpuUsPerPush: Number(((sent.cpuMs * 1000) / sent.pushes).toFixed(1)),
});
