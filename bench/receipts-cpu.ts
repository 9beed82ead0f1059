// POST /api/v1/receipts CPU in one process (inject, as accept-cpu.ts measures the accept path): a channel of
// subscribers got one notification, and every subscriber's device reports `opened`, in waves of 50 concurrent
// reports, as a big channel does in the minutes after a push. It reports this process's CPU time per report and
// reports per CPU-second, beside the accept path's on the same database in the same process (the goal: receipts at
// least at the accept path's rate), with --postgres the PostgreSQL processes' CPU per report too, and the bytes a
// receipt adds to each platform's payload.
//
//   node --import tsx bench/receipts-cpu.ts [--quick] [--postgres postgres://…] [--reports 6000] [--rounds 3]
import { parseArgs } from 'node:util';
import { buildApnsPayload } from '../src/delivery/apns/apns-payload.ts';
import { fcmPayloadBytes } from '../src/delivery/fcm/fcm-message.ts';
import type { PushContent } from '../src/delivery/push-content.ts';
import { RECEIPT_MEMBER_BYTES } from '../src/delivery/receipt-member.ts';
import { mintReceipt, receiptKey } from '../src/domain/receipt.ts';
import { contentAsStored } from '../src/domain/notification-content.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { resolveSecretKey } from '../src/config/secret-key.ts';
import {
  benchDialects,
  createBenchDatabase,
  ONE_PUSH_NOTIFICATION,
  seedAccount,
  seedChannel,
  seedOnePushChannel,
} from './harness/bench-database.ts';
import { median, printBenchResult, round, type BenchFigures } from './harness/bench-result.ts';
import { inProcessAcceptApp } from './harness/in-process-accept.ts';
import { postgresDatabaseCpuSeconds } from './harness/process-usage.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    postgres: { type: 'string' },
    reports: { type: 'string' },
    rounds: { type: 'string' },
  },
});
const reports = Number(values.reports ?? (values.quick ? 200 : 6000));
const rounds = Number(values.rounds ?? (values.quick ? 1 : 3));
const wave = 50;
const figures: BenchFigures = {};

// The bytes a receipt adds to a push: a member of the APNs payload and of the Web Push JSON (and APNs'
// mutable-content, so a Notification Service Extension runs), a key of FCM `data`.
const { channelCode: _channel, ...oneNotification } = ONE_PUSH_NOTIFICATION;
const content: PushContent = { notificationId: `ntf_${'0'.repeat(26)}`, ...contentAsStored(oneNotification) };
const apnsBytes = (withReceipt: boolean) =>
  Buffer.byteLength(JSON.stringify(buildApnsPayload(content, { threadId: 'one', withReceipt })));
figures['bytes a receipt adds: APNs'] = apnsBytes(true) + RECEIPT_MEMBER_BYTES - apnsBytes(false);
figures['bytes a receipt adds: FCM (data, as FCM counts)'] =
  fcmPayloadBytes(content, {
    receipt: mintReceipt(Buffer.alloc(32), content.notificationId, `sub_${'0'.repeat(26)}`),
  }) - fcmPayloadBytes(content);
figures['bytes a receipt adds: Web Push (before encryption)'] = RECEIPT_MEMBER_BYTES;

for (const dialect of benchDialects(values.postgres)) {
  const database = await createBenchDatabase(dialect === 'postgres' ? values.postgres : undefined);
  try {
    const account = await seedAccount(database.store);
    await seedOnePushChannel(database.store, account.accountId);
    const subscribers = reports * (rounds + 1);
    const bigChannel = await seedChannel(database.store, account.accountId, {
      code: 'big',
      subscribers,
      platform: 'android',
    });
    const { app, send } = await inProcessAcceptApp(database, account.secretKey, JSON.stringify(ONE_PUSH_NOTIFICATION));
    const sent = await app.inject({
      method: 'POST',
      url: '/api/v1/notifications',
      headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ ...ONE_PUSH_NOTIFICATION, channelCode: 'big' }),
    });
    const notificationId = (sent.json() as { data: { id: string } }).data.id;
    // The counters a dispatch would have made; the reports add to them.
    await database.store.db
      .insertInto('notification_platform_stats')
      .values({
        notification_id: notificationId,
        platform: 'android',
        targeted: subscribers,
        delivered: subscribers,
        failed: 0,
      })
      .execute();
    const ids = (
      await database.store.db
        .selectFrom('subscribers')
        .select('id')
        .where('channel_id', '=', bigChannel)
        .orderBy('id')
        .execute()
    ).map((row) => row.id);
    const config = loadConfig(database.env);
    const key = receiptKey(resolveSecretKey(config.secretKey, config.dataDir));
    const bodies = ids.map((id) => JSON.stringify({ receipt: mintReceipt(key, notificationId, id), event: 'opened' }));
    let next = 0;
    const report = async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/receipts',
        headers: { 'content-type': 'application/json' },
        payload: bodies[next++]!,
      });
      if (response.statusCode !== 202) throw new Error(`expected 202, got ${response.statusCode}: ${response.body}`);
    };
    const inWaves = async (count: number, one: () => Promise<void>) => {
      for (let done = 0; done < count; done += wave)
        await Promise.all(Array.from({ length: Math.min(wave, count - done) }, one));
    };
    await inWaves(reports, report); // warm-up: JIT, caches
    await inWaves(Math.min(reports, 2000), () => send());
    const receiptUs: number[] = [];
    const acceptUs: number[] = [];
    const databaseUs: number[] = [];
    for (let round_ = 0; round_ < rounds; round_ += 1) {
      const databaseBefore = database.databaseUrl ? await postgresDatabaseCpuSeconds(database.databaseUrl) : 0;
      let before = process.cpuUsage();
      await inWaves(reports, report);
      let used = process.cpuUsage(before);
      receiptUs.push((used.user + used.system) / reports);
      if (database.databaseUrl)
        databaseUs.push((((await postgresDatabaseCpuSeconds(database.databaseUrl)) - databaseBefore) * 1e6) / reports);
      // The accept path on the same database, interleaved, for the comparison.
      before = process.cpuUsage();
      await inWaves(reports, () => send());
      used = process.cpuUsage(before);
      acceptUs.push((used.user + used.system) / reports);
    }
    await app.close();
    const counted = await database.store.db
      .selectFrom('notification_platform_stats')
      .select('opened')
      .where('notification_id', '=', notificationId)
      .executeTakeFirstOrThrow();
    if (Number(counted.opened) !== reports * (rounds + 1)) throw new Error(`counted ${counted.opened} opens`);
    figures[`${dialect} server CPU per receipt (µs)`] = round(median(receiptUs));
    figures[`${dialect} server CPU per receipt, range (µs)`] = receiptUs.map(round);
    figures[`${dialect} receipts per CPU-second`] = Math.round(1e6 / median(receiptUs));
    figures[`${dialect} accepts per CPU-second, same run`] = Math.round(1e6 / median(acceptUs));
    if (dialect === 'postgres') figures[`${dialect} database CPU per receipt (µs)`] = round(median(databaseUs));
    console.error(`${dialect}: ${JSON.stringify(figures)}`);
  } finally {
    await database.drop();
  }
}
printBenchResult(figures);
