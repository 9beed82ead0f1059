// Fake APNs and FCM in a process of their own, for the benchmarks (bench/harness/fakes-process.ts starts it), so
// their work never counts as Clarion's. Prints one line `FAKES <json env>` with Clarion's provider settings, then,
// for each notification the first time any device receives it, `PUSH <notification id> <epoch ms>`; and every
// second `COUNT <pushes so far>`. Per-request records are dropped as it goes so its memory stays flat.
import { join } from 'node:path';
import { createApnsSigningKey, ensureFakeTls, startFakeApns, startFakeFcm, writeCredentialFile } from '../../tools/fakes/index.ts';

const dir = process.argv[2]!;
const topic = 'com.example.bench';
const tls = ensureFakeTls();
const key = createApnsSigningKey();
const apns = await startFakeApns({ keys: [key], topics: [topic] });
const fcm = await startFakeFcm();
const account = fcm.createServiceAccount('bench');

let pushes = 0;
const seen = new Set<string>();
const firstPush = (notificationId: string | null | undefined) => {
  pushes += 1;
  if (!notificationId || seen.has(notificationId)) return;
  seen.add(notificationId);
  process.stdout.write(`PUSH ${notificationId} ${Date.now()}\n`);
};
apns.onRequest((request) => firstPush(request.collapseId));
fcm.onRequest((request) => firstPush((request.message as { android?: { notification?: { tag?: string } } } | null)?.android?.notification?.tag));
setInterval(() => {
  apns.reset();
  fcm.reset();
  process.stdout.write(`COUNT ${pushes}\n`);
}, 1000);

const env = {
  CLARION_APNS_URL: apns.url,
  CLARION_APNS_KEY_FILE: writeCredentialFile(join(dir, 'apns.p8'), key),
  CLARION_APNS_KEY_ID: key.keyId,
  CLARION_APNS_TEAM_ID: key.teamId,
  CLARION_APNS_TOPIC: topic,
  CLARION_FCM_URL: fcm.url,
  CLARION_FCM_SERVICE_ACCOUNT_FILE: writeCredentialFile(join(dir, 'fcm.json'), account),
  NODE_EXTRA_CA_CERTS: tls.caCertPath,
};
process.stdout.write(`FAKES ${JSON.stringify(env)}\n`);
process.on('SIGTERM', () => {
  void Promise.all([apns.close(), fcm.close()]).finally(() => process.exit(0));
});
