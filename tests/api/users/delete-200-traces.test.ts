import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../../src/store/database.ts';
import { relayEvents } from '../../../src/webhooks/webhook-relay.ts';
import { expectSuccess } from '../../harness/api-expect.ts';
import { del, get, post } from '../../harness/requests.ts';
import { progressActivity, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { testDialect } from '../../harness/test-dialect.ts';
import { createWebhook, TEST_SCHEDULE } from '../../webhooks/webhook-harness.ts';

/**
 * After DELETE /users/{externalId} nothing the database keeps names the person: not a column of any table (audiences
 * of notifications and Live Activities, webhook messages and what receivers answered, idempotency records), and on
 * SQLite not the bytes of the database file or its WAL either (secure_delete, and the WAL checkpointed and truncated).
 */
let t: TestApp;
beforeAll(async () => {
  // Its own PostgreSQL database, so every row read below belongs to this file; webhooks to loopback allowed.
  t = await startTestApp({ allowPrivateWebhooks: true }, { isolatedDatabase: true });
});
afterAll(async () => t?.close());

async function everyRow(): Promise<string[]> {
  const rows: string[] = [];
  const tables = (await t.store.db.introspection.getTables())
    .map((table) => table.name)
    .filter((name) => !name.startsWith('kysely_'));
  for (const table of tables) {
    for (const row of await t.store.db
      .selectFrom(table as 'subscribers')
      .selectAll()
      .execute())
      rows.push(`${table}: ${JSON.stringify(row)}`);
  }
  return rows;
}

/** The person's traces a database could keep: their id, and every token their devices reported. */
async function personWithEverything() {
  const account = await t.newAccount({ channels: ['news', 'sport'] });
  await createWebhook(t, account.secretKey, { url: 'http://127.0.0.1:9/hook' });
  t.clock.advance(1);
  const externalId = `erase-me-${randomUUID()}`;
  const secrets = {
    ios: tokens.ios(),
    pushToStart: tokens.ios(),
    templatePushToStart: tokens.ios(),
    activity: tokens.ios(),
    web: tokens.web(),
  };
  const idempotent = (key: string) => ({ 'idempotency-key': `${key}-${randomUUID()}` });
  const phone = expectSuccess(
    await post(
      t.app,
      '/api/v1/subscribers',
      account.publishableKey,
      { channelCode: 'news', platform: 'ios', token: secrets.ios, externalId, pushToStartToken: secrets.pushToStart },
      idempotent('register'),
    ),
    201,
  ).id;
  // A push-to-start token of one template (push_to_start_tokens).
  expectSuccess(
    await post(t.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'news',
      platform: 'ios',
      token: secrets.ios,
      externalId,
      pushToStartToken: secrets.templatePushToStart,
      template: 'progress',
    }),
    200,
  );
  expectSuccess(
    await post(t.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'sport',
      platform: 'web',
      token: secrets.web,
      externalId,
    }),
    201,
  );
  const someoneElse = expectSuccess(
    await post(t.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'news',
      platform: 'android',
      token: tokens.android(),
      externalId: 'someone-else',
    }),
    201,
  ).id;
  const notification = expectSuccess(
    await post(
      t.app,
      '/api/v1/notifications',
      account.secretKey,
      { channelCode: 'news', title: 'For two people', externalIds: [externalId, 'someone-else'] },
      idempotent('send'),
    ),
    201,
  ).id;
  const onlyThem = expectSuccess(
    await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'For them',
      externalIds: [externalId],
    }),
    201,
  ).id;
  const activity = expectSuccess(
    await post(t.app, '/api/v1/live-activities', account.secretKey, {
      ...progressActivity('news'),
      externalIds: [externalId],
    }),
    201,
  ).id;
  expectSuccess(
    await post(t.app, `/api/v1/live-activities/${activity}/tokens`, account.publishableKey, {
      subscriberId: phone,
      token: secrets.activity,
      deviceToken: secrets.ios,
    }),
    201,
  );
  // subscriber.created events become webhook messages; a receiver that echoes the body leaves it in the attempt.
  while ((await relayEvents({ store: t.store, queue: t.queue, clock: t.clock, schedule: TEST_SCHEDULE })) > 0) {
    // until every event is relayed
  }
  const messages = await t.store.db
    .selectFrom('webhook_messages')
    .select(['id', 'payload'])
    .where('account_id', '=', account.id)
    .execute();
  const echoed = messages.find((message) => message.payload.includes(externalId))!;
  await t.store.db
    .insertInto('webhook_attempts')
    .values({
      message_id: echoed.id,
      attempt: 1,
      kind: 'scheduled',
      url: 'http://127.0.0.1:9/hook',
      status_code: 200,
      duration_ms: 3,
      response_excerpt: echoed.payload,
      error: null,
      attempted_at: t.clock.now(),
    })
    .execute();
  const traces = [
    externalId,
    secrets.ios,
    secrets.pushToStart,
    secrets.templatePushToStart,
    secrets.activity,
    secrets.web.endpoint,
    secrets.web.keys.p256dh,
    secrets.web.keys.auth,
  ];
  return { account, externalId, traces, notification, onlyThem, activity, someoneElse };
}

describe('DELETE /api/v1/users/:externalId leaves no trace', () => {
  it('in any column of any table: audiences, push-to-start tokens, webhook messages and attempts, idempotency records', async () => {
    const person = await personWithEverything();
    const before = await everyRow();
    for (const trace of person.traces)
      expect(
        before.some((row) => row.includes(trace)),
        trace,
      ).toBe(true);

    expectSuccess(await del(t.app, `/api/v1/users/${person.externalId}`, person.account.secretKey), 200);

    const after = await everyRow();
    for (const trace of person.traces)
      expect(
        after.filter((row) => row.includes(trace)),
        trace,
      ).toEqual([]);
    // The audiences still target the others they named.
    expect(
      expectSuccess(await get(t.app, `/api/v1/notifications/${person.notification}`, person.account.secretKey), 200)
        .audience,
    ).toEqual({ type: 'externalIds', count: 1 });
    expect(
      expectSuccess(await get(t.app, `/api/v1/notifications/${person.onlyThem}`, person.account.secretKey), 200)
        .audience,
    ).toEqual({ type: 'externalIds', count: 0 });
    expect(
      expectSuccess(await get(t.app, `/api/v1/subscribers/${person.someoneElse}`, person.account.secretKey), 200)
        .externalId,
    ).toBe('someone-else');
  });

  it('takes an id out of audiences when no subscriber has it, matching it exactly (LIKE wildcards and JSON escapes in it)', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const externalId = `50%_off "quoted" \\ ${randomUUID()}`;
    const lookalike = externalId.replace('%_', 'XY');
    const named = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'news',
        title: 'A',
        externalIds: [externalId, lookalike],
      }),
      201,
    ).id;
    const other = expectSuccess(
      await post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'news',
        title: 'B',
        externalIds: [lookalike],
      }),
      201,
    ).id;

    expect(
      expectSuccess(await del(t.app, `/api/v1/users/${encodeURIComponent(externalId)}`, account.secretKey), 200),
    ).toEqual({ externalId, deletedSubscribers: [] });

    const audienceOf = async (id: string) =>
      (await t.store.db.selectFrom('notifications').select('audience').where('id', '=', id).executeTakeFirstOrThrow())
        .audience;
    expect(JSON.parse((await audienceOf(named))!)).toEqual({ externalIds: [lookalike] });
    expect(JSON.parse((await audienceOf(other))!)).toEqual({ externalIds: [lookalike] });
    // Nothing names it any more: a second erasure finds nothing.
    expect((await del(t.app, `/api/v1/users/${encodeURIComponent(externalId)}`, account.secretKey)).statusCode).toBe(
      404,
    );
  });

  it.runIf(testDialect === 'sqlite')('in the bytes of the SQLite database file and its WAL', async () => {
    const person = await personWithEverything();
    const file = join(t.config.dataDir, SQLITE_FILE_NAME);
    const bytes = () =>
      Buffer.concat([readFileSync(file), existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`) : Buffer.alloc(0)]);
    for (const trace of person.traces) expect(bytes().includes(trace), trace).toBe(true);

    expectSuccess(await del(t.app, `/api/v1/users/${person.externalId}`, person.account.secretKey), 200);

    const after = bytes();
    expect(person.traces.filter((trace) => after.includes(trace))).toEqual([]);
  });
});
