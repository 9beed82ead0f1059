import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeToken } from '../../src/domain/device-token.ts';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { createChannel } from '../../src/store/channels-queries.ts';
import { updateSubscriberDetails } from '../../src/store/subscriber-directory-queries.ts';
import { registerSubscriber } from '../../src/store/subscribers-queries.ts';
import { runCli } from '../harness/cli-process.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

/** `clarion subscribers list` on the dialect under test: who is subscribed, filtered and paged, never a token. */
let test: TestStore;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  test = await openTestStore({ isolated: true });
  env = { CLARION_DATA_DIR: test.dataDir, CLARION_DATABASE_URL: test.databaseUrl };
});
afterAll(async () => {
  await test?.close();
});

describe('clarion subscribers list', () => {
  it('lists subscribers newest first with the API filters, pages with --cursor, and never prints a token', async () => {
    let now = Date.now();
    const account = await createAccount(test.store.db, { name: 'list', plan: 'business', now });
    const news = await createChannel(test.store.db, {
      accountId: account.id,
      code: 'news',
      name: 'News',
      description: null,
      now,
    });
    const sport = await createChannel(test.store.db, {
      accountId: account.id,
      code: 'sport',
      name: 'Sport',
      description: null,
      now,
    });
    const made: Array<{ id: string; token: string }> = [];
    for (const [channel, externalId] of [
      [news, 'alice'],
      [news, 'bob'],
      [sport, 'alice'],
    ] as const) {
      now += 1000;
      const token = `fcm-token-${made.length}-${'x'.repeat(20)}`;
      const normalized = normalizeToken('android', token);
      if (!normalized.ok) throw new Error('bad token');
      const { subscriber } = await test.store.db.transaction().execute((trx) =>
        registerSubscriber(trx, {
          accountId: account.id,
          channelId: channel.id,
          channelCode: channel.code,
          platform: 'android',
          token,
          tokenHash: normalized.value.tokenHash,
          pushToStartToken: null,
          timezone: null,
          locale: null,
          externalId,
          now,
        }),
      );
      made.push({ id: subscriber.id, token });
    }
    await updateSubscriberDetails(test.store.db, made[0]!.id, { tags: ['vip'] }, now);

    const all = runCli(['subscribers', 'list', '--account', account.id, '--json'], env);
    expect(all.status, all.stderr).toBe(0);
    const listed = JSON.parse(all.stdout);
    expect(listed.subscribers.map((row: any) => row.id)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id]);
    expect(listed.nextCursor).toBeNull();
    for (const { token } of made) expect(all.stdout).not.toContain(token);

    const alice = JSON.parse(
      runCli(
        [
          'subscribers',
          'list',
          '--account',
          account.id,
          '--external-id',
          'alice',
          '--channel',
          'news',
          '--tag',
          'vip',
          '--json',
        ],
        env,
      ).stdout,
    );
    expect(alice.subscribers.map((row: any) => [row.id, row.channelCode, row.externalId])).toEqual([
      [made[0]!.id, 'news', 'alice'],
    ]);

    const first = JSON.parse(
      runCli(['subscribers', 'list', '--account', account.id, '--limit', '2', '--json'], env).stdout,
    );
    expect(first.subscribers).toHaveLength(2);

    const human = runCli(
      ['subscribers', 'list', '--account', account.id, '--limit', '2', '--cursor', first.nextCursor],
      env,
    );
    expect(human.stdout).toContain(`${made[0]!.id}  news`);
  }, 180_000);

  it('refuses a bad filter and an unknown channel with a non-zero exit', async () => {
    const account = await createAccount(test.store.db, { name: 'bad', plan: 'free', now: Date.now() });
    const badPlatform = runCli(
      ['subscribers', 'list', '--account', account.id, '--platform', 'windows', '--json'],
      env,
    );
    expect(badPlatform.status).not.toBe(0);
    expect(JSON.parse(badPlatform.stdout || badPlatform.stderr).error.code).toBe('validation_failed');
    const unknown = runCli(['subscribers', 'list', '--account', account.id, '--channel', 'nowhere', '--json'], env);
    expect(unknown.status).not.toBe(0);
    expect(JSON.parse(unknown.stdout || unknown.stderr).error.code).toBe('channel_not_found');
  }, 120_000);
});
