import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeToken } from '../../src/domain/device-token.ts';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { createChannel } from '../../src/store/channels-queries.ts';
import { insertWebhook, disableWebhookEndpoint } from '../../src/store/webhooks-queries.ts';
import { newId } from '../../src/domain/ids.ts';
import { registerSubscriber, unsubscribeSubscriber } from '../../src/store/subscribers-queries.ts';
import { runCli } from '../harness/cli-process.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

/**
 * `clarion subscribers import FILE` on the dialect under test (a database of its own on PostgreSQL): what it creates,
 * that duplicates follow the register endpoint's rules, and that a bad file imports nothing.
 */
let test: TestStore;
let env: Record<string, string | undefined>;
let file = 0;

beforeAll(async () => {
  test = await openTestStore({ isolated: true });
  env = { CLARION_DATA_DIR: test.dataDir, CLARION_DATABASE_URL: test.databaseUrl };
});
afterAll(async () => {
  await test?.close();
});

async function accountWithChannels(...codes: string[]) {
  const now = Date.now();
  const account = await createAccount(test.store.db, { name: 'import', plan: 'business', now });
  const channels = [];
  for (const code of codes)
    channels.push(
      await createChannel(test.store.db, { accountId: account.id, code, name: code, description: null, now }),
    );
  return { account, channels };
}

function ndjson(lines: Array<Record<string, unknown> | string>): string {
  file += 1;
  const path = join(test.dataDir, `import-${file}.ndjson`);
  writeFileSync(path, `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`);
  return path;
}

const iosToken = (n: number) => `f${n.toString(16).padStart(63, '0')}`;

/** A webhook endpoint of the account: with one, the import's subscriber.created events have somewhere to go. */
async function withWebhookEndpoint(accountId: string, status: 'enabled' | 'disabled' = 'enabled') {
  const id = newId('webhook');
  await insertWebhook(test.store.db, {
    id,
    accountId,
    url: 'https://hooks.example.com/clarion',
    description: null,
    eventTypes: ['*'],
    sealedSecret: 'sealed',
    now: Date.now(),
  });
  if (status === 'disabled') await disableWebhookEndpoint(test.store.db, { id, reason: 'test', now: Date.now() });
}

async function subscribersOf(channelId: string) {
  return test.store.db
    .selectFrom('subscribers')
    .selectAll()
    .where('channel_id', '=', channelId)
    .orderBy('token')
    .execute();
}

async function createdEvents(accountId: string) {
  return test.store.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('account_id', '=', accountId)
    .where('type', '=', 'subscriber.created')
    .execute();
}

describe('clarion subscribers import', () => {
  it('registers every line, in several channels, with its details and one subscriber.created event each', async () => {
    const { account, channels } = await accountWithChannels('news', 'deals');
    await withWebhookEndpoint(account.id);
    const path = ndjson([
      {
        channel: 'news',
        platform: 'ios',
        token: iosToken(1).toUpperCase(),
        timezone: 'Europe/Berlin',
        locale: 'de-DE',
        externalId: 'u-1',
      },
      { channel: 'news', platform: 'android', token: 'fcm-token-1' },
      '',
      { channel: 'deals', platform: 'android', token: 'fcm-token-1', pushToStartToken: null },
      {
        channel: 'news',
        platform: 'web',
        token: {
          endpoint: 'https://push.example.com/send/abc',
          keys: { p256dh: Buffer.alloc(65, 4).toString('base64url'), auth: Buffer.alloc(16, 1).toString('base64url') },
        },
      },
    ]);
    const result = runCli(['subscribers', 'import', path, '--account', account.id, '--json'], env);
    expect(result.status, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ lines: 4, created: 4, reactivated: 0, updated: 0 });

    const news = await subscribersOf(channels[0]!.id);
    expect(news.map((row) => [row.platform, row.status])).toEqual([
      ['ios', 'active'],
      ['android', 'active'],
      ['web', 'active'],
    ]);
    // Stored exactly as the register endpoint stores them: the hex token lower-cased, the web subscription as JSON.
    expect(news[0]).toMatchObject({
      token: iosToken(1),
      timezone: 'Europe/Berlin',
      locale: 'de-DE',
      external_id: 'u-1',
    });
    // The token hash as its 32 SHA-256 bytes (migration 0017), the web subscription's of its endpoint alone.
    expect(news[0]!.token_hash).toEqual(createHash('sha256').update(iosToken(1)).digest());
    expect(news[2]!.token_hash).toEqual(createHash('sha256').update('https://push.example.com/send/abc').digest());
    expect(news[0]!.id).toMatch(/^sub_/);
    expect(JSON.parse(news[2]!.token)).toMatchObject({ endpoint: 'https://push.example.com/send/abc' });
    expect(await subscribersOf(channels[1]!.id)).toHaveLength(1);
    const events = await createdEvents(account.id);
    expect(events).toHaveLength(4);
    expect(JSON.parse(events[0]!.data)).toMatchObject({
      subscriberId: expect.stringMatching(/^sub_/),
      channelCode: expect.any(String),
      platform: expect.any(String),
    });
  });

  it('treats known tokens as the register endpoint does: details refreshed, unsubscribed ones reactivated, a token twice counted once', async () => {
    const { account, channels } = await accountWithChannels('news');
    await withWebhookEndpoint(account.id);
    const channel = channels[0]!;
    const now = Date.now();
    const register = (token: string) => {
      const normalized = normalizeToken('android', token);
      if (!normalized.ok) throw new Error('bad token');
      return test.store.db.transaction().execute((trx) =>
        registerSubscriber(trx, {
          accountId: account.id,
          channelId: channel.id,
          channelCode: 'news',
          platform: 'android',
          ...normalized.value,
          pushToStartToken: null,
          timezone: null,
          locale: null,
          externalId: 'old',
          now,
        }),
      );
    };
    const kept = await register('fcm-kept');
    const gone = await register('fcm-gone');
    await test.store.db
      .transaction()
      .execute((trx) =>
        unsubscribeSubscriber(trx, { subscriber: gone.subscriber, channelCode: 'news', reason: 'requested', now }),
      );
    const eventsBefore = (await createdEvents(account.id)).length;

    const path = ndjson([
      { channel: 'news', platform: 'android', token: 'fcm-kept', externalId: 'first' },
      { channel: 'news', platform: 'android', token: 'fcm-gone', externalId: 'back' },
      { channel: 'news', platform: 'android', token: 'fcm-new' },
      { channel: 'news', platform: 'android', token: 'fcm-kept', externalId: 'second' },
    ]);
    const result = runCli(['subscribers', 'import', path, '--account', account.id, '--json'], env);
    expect(result.status, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ lines: 4, created: 1, reactivated: 1, updated: 2 });

    const rows = await subscribersOf(channel.id);
    expect(rows.map((row) => [row.token, row.status, row.external_id])).toEqual([
      ['fcm-gone', 'active', 'back'],
      ['fcm-kept', 'active', 'second'],
      ['fcm-new', 'active', null],
    ]);
    expect(rows.find((row) => row.token === 'fcm-kept')!.id).toBe(kept.subscriber.id);
    expect(rows.find((row) => row.token === 'fcm-gone')).toMatchObject({
      id: gone.subscriber.id,
      unsubscribe_reason: null,
      unsubscribed_at: null,
    });
    // The new one and the reactivated one are announced; the refreshed one is not.
    expect((await createdEvents(account.id)).length - eventsBefore).toBe(2);
  });

  it('takes the newer iOS registration fields: environment, osVersion and push-to-start tokens per template', async () => {
    const { account, channels } = await accountWithChannels('news');
    const path = ndjson([
      {
        channel: 'news',
        platform: 'ios',
        token: iosToken(31),
        environment: 'sandbox',
        osVersion: '18.2',
        pushToStartToken: iosToken(32),
        pushToStartTokens: { score: iosToken(33).toUpperCase(), timer: iosToken(34) },
      },
      { channel: 'news', platform: 'ios', token: iosToken(35), environment: 'production', osVersion: '17.4.1' },
    ]);
    const result = runCli(['subscribers', 'import', path, '--account', account.id, '--json'], env);
    expect(result.status, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ lines: 2, created: 2 });
    const [first, second] = await subscribersOf(channels[0]!.id);
    expect(first).toMatchObject({
      token: iosToken(31),
      apns_environment: 'sandbox',
      os_version: '18.2',
      push_to_start_token: iosToken(32),
    });
    expect(second).toMatchObject({
      token: iosToken(35),
      apns_environment: 'production',
      os_version: '17.4.1',
      push_to_start_token: null,
    });
    const templated = await test.store.db
      .selectFrom('push_to_start_tokens')
      .select(['subscriber_id', 'template', 'token'])
      .where('subscriber_id', 'in', [first!.id, second!.id])
      .orderBy('template')
      .execute();
    expect(templated).toEqual([
      { subscriber_id: first!.id, template: 'score', token: iosToken(33) },
      { subscriber_id: first!.id, template: 'timer', token: iosToken(34) },
    ]);

    // Imported again: the templated token replaced, the os version refreshed, and an environment left out keeps the known one.
    const again = ndjson([
      {
        channel: 'news',
        platform: 'ios',
        token: iosToken(31),
        osVersion: '18.3',
        pushToStartTokens: { score: iosToken(36) },
      },
    ]);
    expect(runCli(['subscribers', 'import', again, '--account', account.id, '--json'], env).json).toMatchObject({
      lines: 1,
      updated: 1,
    });
    const [refreshed] = await subscribersOf(channels[0]!.id);
    expect(refreshed).toMatchObject({ id: first!.id, apns_environment: 'sandbox', os_version: '18.3' });
    const score = await test.store.db
      .selectFrom('push_to_start_tokens')
      .select('token')
      .where('subscriber_id', '=', first!.id)
      .where('template', '=', 'score')
      .executeTakeFirst();
    expect(score?.token).toBe(iosToken(36));
  });

  it('records no events with --no-events', async () => {
    const { account } = await accountWithChannels('news');
    await withWebhookEndpoint(account.id);
    const result = runCli(
      [
        'subscribers',
        'import',
        ndjson([{ channel: 'news', platform: 'android', token: 'quiet' }]),
        '--account',
        account.id,
        '--no-events',
        '--json',
      ],
      env,
    );
    expect(result.json).toMatchObject({ created: 1 });
    expect(await createdEvents(account.id)).toEqual([]);
  });

  it('records the events only when a webhook endpoint could receive them (SQLite; on PostgreSQL always)', async () => {
    const { account } = await accountWithChannels('news');
    const first = runCli(
      [
        'subscribers',
        'import',
        ndjson([{ channel: 'news', platform: 'android', token: 'unheard' }]),
        '--account',
        account.id,
        '--json',
      ],
      env,
    );
    expect(first.json).toMatchObject({ created: 1 });
    // No endpoint of the account exists, so none created later could be sent these events (docs/webhooks.md): on
    // SQLite, which serializes the import with any endpoint's creation, they are not written.
    expect(await createdEvents(account.id)).toHaveLength(test.store.dialect === 'sqlite' ? 0 : 1);
    // A disabled endpoint may be enabled again and then gets the events recorded in the meantime: they are written.
    await withWebhookEndpoint(account.id, 'disabled');
    const second = runCli(
      [
        'subscribers',
        'import',
        ndjson([{ channel: 'news', platform: 'android', token: 'heard' }]),
        '--account',
        account.id,
        '--json',
      ],
      env,
    );
    expect(second.json).toMatchObject({ created: 1 });
    const events = await createdEvents(account.id);
    expect(events).toHaveLength(test.store.dialect === 'sqlite' ? 1 : 2);
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ channelCode: 'news', platform: 'android' });
  });

  it('imports more lines than one transaction holds', async () => {
    const { account, channels } = await accountWithChannels('big');
    const lines = Array.from({ length: 12_001 }, (_, n) => ({
      channel: 'big',
      platform: n % 2 === 0 ? 'ios' : 'android',
      token: n % 2 === 0 ? iosToken(n) : `fcm-${n}`,
    }));
    const result = runCli(
      ['subscribers', 'import', ndjson(lines), '--account', account.id, '--no-events', '--json'],
      env,
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ lines: 12_001, created: 12_001 });
    expect(await subscribersOf(channels[0]!.id)).toHaveLength(12_001);
  });
});

describe('clarion subscribers import refuses a bad file and imports nothing', () => {
  it('lists every bad line with its number and reason', async () => {
    const { account, channels } = await accountWithChannels('news');
    const path = ndjson([
      { channel: 'news', platform: 'android', token: 'fine' },
      { channel: 'news', platform: 'ios', token: 'not-hex' },
      'not json',
      { channel: 'news', platform: 'pager', token: 'x' },
      {
        channel: 'news',
        platform: 'android',
        token: 'ok',
        timezone: 'Mars/Olympus',
        locale: 'not a locale',
        colour: 'red',
      },
      { channel: 'Bad Code', platform: 'android', token: 'ok', pushToStartToken: iosToken(1) },
      '[1, 2]',
      { channel: 'news', platform: 'android', token: 'ok-too', timezone: 'PST' },
    ]);
    const result = runCli(['subscribers', 'import', path, '--account', account.id, '--json'], env);
    expect(result.status).toBe(1);
    expect(result.json.error.code).toBe('validation_failed');
    const message: string = result.json.error.message;
    expect(message).toContain('nothing imported');
    expect(message).toMatch(/line 2: token: an iOS token is the APNs device token in hex/);
    expect(message).toMatch(/line 3: not a JSON object/);
    expect(message).toMatch(/line 4: platform: must be one of ios, android, web/);
    expect(message).toMatch(/line 5: colour: unknown field/);
    expect(message).toMatch(/line 5: timezone: must be an IANA time zone name/);
    expect(message).toMatch(/line 5: locale: must be a BCP 47 language tag/);
    expect(message).toMatch(/line 6: channel: must be a channel code/);
    expect(message).toMatch(/line 6: pushToStartToken: only iOS subscribers have a push-to-start token/);
    expect(message).toMatch(/line 7: not a JSON object/);
    expect(message).toContain(
      'line 8: timezone: must be an IANA time zone name like America/Los_Angeles, Europe/Berlin or UTC; abbreviations like PST or CET are not accepted',
    );
    expect(message).not.toMatch(/line 1:/);
    expect(await subscribersOf(channels[0]!.id)).toEqual([]);
  });

  it('checks the newer iOS fields as POST /subscribers does', async () => {
    const { account, channels } = await accountWithChannels('news');
    const path = ndjson([
      { channel: 'news', platform: 'ios', token: iosToken(41), environment: 'staging', osVersion: 'eighteen' },
      {
        channel: 'news',
        platform: 'android',
        token: 'fcm-1',
        environment: 'sandbox',
        osVersion: '18.2',
        pushToStartTokens: { score: iosToken(42) },
      },
      {
        channel: 'news',
        platform: 'ios',
        token: iosToken(43),
        pushToStartTokens: { karaoke: iosToken(44), score: 'not-hex' },
      },
      { channel: 'news', platform: 'ios', token: iosToken(45), pushToStartTokens: [iosToken(46)] },
      {
        channel: 'news',
        platform: 'ios',
        token: iosToken(47),
        environment: 'sandbox',
        osVersion: '18.2',
        pushToStartTokens: { timer: iosToken(48) },
      },
    ]);
    const result = runCli(['subscribers', 'import', path, '--account', account.id, '--json'], env);
    expect(result.status).toBe(1);
    expect(result.json.error.code).toBe('validation_failed');
    const message: string = result.json.error.message;
    expect(message).toMatch(/line 1: environment: must be one of sandbox, production/);
    expect(message).toMatch(/line 1: osVersion: must be an iOS version like 18.2/);
    expect(message).toMatch(/line 2: environment: only iOS tokens have an APNs environment/);
    expect(message).toMatch(/line 2: osVersion: only iOS subscribers report an osVersion/);
    expect(message).toMatch(/line 2: pushToStartTokens: only iOS subscribers have push-to-start tokens/);
    expect(message).toMatch(/line 3: pushToStartTokens.karaoke: not a template/);
    expect(message).toMatch(/line 3: pushToStartTokens.score: an iOS token is the APNs device token in hex/);
    expect(message).toMatch(/line 4: pushToStartTokens: must be an object of template name to token/);
    expect(message).not.toMatch(/line 5:/);
    expect(await subscribersOf(channels[0]!.id)).toEqual([]);
    expect(
      await test.store.db.selectFrom('push_to_start_tokens').selectAll().where('token', '=', iosToken(48)).execute(),
    ).toEqual([]);
  });

  it('shows the first 20 problems of a file full of them', async () => {
    const { account } = await accountWithChannels('news');
    const result = runCli(
      ['subscribers', 'import', ndjson(Array.from({ length: 25 }, () => 'nope')), '--account', account.id, '--json'],
      env,
    );
    expect(result.json.error.message).toMatch(/line 20: not a JSON object \(one subscriber per line\)\n… and 5 more$/);
  });

  it('refuses a channel the account does not have', async () => {
    const { account, channels } = await accountWithChannels('news');
    const path = ndjson([
      { channel: 'news', platform: 'android', token: 'fine' },
      { channel: 'other', platform: 'android', token: 'fine' },
    ]);
    const result = runCli(['subscribers', 'import', path, '--account', account.id, '--json'], env);
    expect(result.status).toBe(1);
    expect(result.json.error).toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/line 2: channel: no channel "other" in account acc_/),
    });
    expect(await subscribersOf(channels[0]!.id)).toEqual([]);
  });

  it('refuses an unknown account and a missing file', () => {
    const path = ndjson([{ channel: 'news', platform: 'android', token: 'fine' }]);
    expect(runCli(['subscribers', 'import', path, '--account', 'acc_nope', '--json'], env).json).toEqual({
      error: { code: 'not_found', message: 'no account acc_nope' },
    });
    const missing = runCli(
      ['subscribers', 'import', join(test.dataDir, 'absent.ndjson'), '--account', 'acc_nope', '--json'],
      env,
    );
    expect(missing.status).toBe(1);
    expect(missing.json.error).toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/cannot read .*absent\.ndjson/),
    });
  });
});
