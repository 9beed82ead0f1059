import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAsync } from '../harness/cli-process.ts';
import { startLiveServer, type LiveServer } from '../harness/live-server.ts';

/**
 * `clarion send` against a live `clarion serve` (worker delivering to the fake FCM), configured the way a caller
 * would: CLARION_URL and CLARION_API_KEY, or the --server and --api-key flags, which win.
 */
let live: LiveServer;
beforeAll(async () => {
  live = await startLiveServer();
});
afterAll(async () => {
  await live?.close();
});

const envFor = (apiKey: string) => ({ CLARION_URL: live.baseUrl, CLARION_API_KEY: apiKey });

async function notificationsOf(apiKey: string): Promise<any[]> {
  const response = await fetch(`${live.baseUrl}/api/v1/notifications`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return ((await response.json()) as any).data;
}

describe('clarion send', () => {
  it('sends over HTTP and prints the notification; the subscriber gets it', async () => {
    const account = await live.newAccount(['news']);
    const sent = await runCliAsync(
      [
        'send',
        '--channel',
        'news',
        '--title',
        'Breaking',
        '--body',
        'From the command line',
        '--url',
        'https://example.com/a/1',
        '--data',
        'story=42',
        '--data',
        'kind=alert',
        '--image-url',
        'https://example.com/a/1.png',
        '--icon-url',
        'https://example.com/icon.png',
        '--sound',
        'default',
        '--badge',
        '3',
        '--ttl',
        '60',
        '--priority',
        'normal',
        '--json',
      ],
      envFor(account.secretKey),
    );
    expect(sent.status, sent.stderr).toBe(0);
    expect(sent.json).toMatchObject({
      id: expect.stringMatching(/^ntf_/),
      channelCode: 'news',
      recipientCount: 1,
      title: 'Breaking',
      body: 'From the command line',
      url: 'https://example.com/a/1',
      data: { story: '42', kind: 'alert' },
      imageUrl: 'https://example.com/a/1.png',
      iconUrl: 'https://example.com/icon.png',
      sound: 'default',
      badge: 3,
      ttlSeconds: 60,
      priority: 'normal',
    });
    const push = await live.fakes.fcm.waitForRequest(
      (request) => request.target?.value === account.androidTokens.news,
      20_000,
    );
    expect(JSON.stringify(push.message)).toContain('From the command line');
  });

  it('sends the alert options', async () => {
    const account = await live.newAccount(['news']);
    const env = envFor(account.secretKey);
    const options = await runCliAsync(
      [
        'send',
        '--channel',
        'news',
        '--title',
        'Door',
        '--subtitle',
        'Front',
        '--category',
        'DOOR',
        '--interruption-level',
        'time-sensitive',
        '--relevance-score',
        '0.5',
        '--target-content-id',
        'cams',
        '--android-channel-id',
        'security',
        '--throttle',
        '600',
        '--json',
      ],
      env,
    );
    expect(options.status, options.stderr).toBe(0);
    expect(options.json).toMatchObject({
      subtitle: 'Front',
      category: 'DOOR',
      interruptionLevel: 'time-sensitive',
      relevanceScore: 0.5,
      targetContentId: 'cams',
      androidChannelId: 'security',
      throttlePerMinute: 600,
      contentAvailable: false,
    });
  });

  it('sends silent pushes passing the frequency cap and quiet hours, localized text, action buttons, and refuses malformed flags', async () => {
    const account = await live.newAccount(['news']);
    const env = envFor(account.secretKey);
    const silent = await runCliAsync(
      [
        'send',
        '--channel',
        'news',
        '--silent',
        '--ignore-frequency-cap',
        '--ignore-quiet-hours',
        '--data',
        'sync=1',
        '--json',
      ],
      env,
    );
    expect(silent.status, silent.stderr).toBe(0);
    expect(silent.json).toMatchObject({
      contentAvailable: true,
      ignoreFrequencyCap: true,
      ignoreQuietHours: true,
      title: null,
      data: { sync: '1' },
    });
    const localized = await runCliAsync(
      ['send', '--channel', 'news', '--title', 'Hi', '--localizations', '{"de": {"title": "Hallo"}}', '--json'],
      env,
    );
    expect(localized.status, localized.stderr).toBe(0);
    expect(localized.json.localizations).toEqual({ de: { title: 'Hallo' } });
    const notJson = await runCliAsync(
      ['send', '--channel', 'news', '--title', 'x', '--localizations', 'de=Hallo'],
      env,
    );
    expect(notJson.status).not.toBe(0);
    expect(notJson.stderr).toContain('--localizations takes a JSON object');
    const withActions = await runCliAsync(
      [
        'send',
        '--channel',
        'news',
        '--title',
        'Deploy v42?',
        '--action',
        'approve=Approve',
        '--action',
        'logs=Logs = output=https://ci.example/42?tab=logs',
        '--json',
      ],
      env,
    );
    expect(withActions.status, withActions.stderr).toBe(0);
    expect(withActions.json.actions).toEqual([
      { id: 'approve', title: 'Approve' },
      { id: 'logs', title: 'Logs = output', url: 'https://ci.example/42?tab=logs' },
    ]);
    const noTitle = await runCliAsync(['send', '--channel', 'news', '--title', 'x', '--action', 'approve'], env);
    expect(noTitle.status).not.toBe(0);
    expect(noTitle.stderr).toContain('--action takes ID=TITLE or ID=TITLE=URL');
    const badScore = await runCliAsync(['send', '--channel', 'news', '--title', 'x', '--relevance-score', '2'], env);
    expect(badScore.status).not.toBe(0);
    expect(badScore.stderr).toContain('--relevance-score takes a number from 0 to 1');
  });

  it('prints one readable line without --json', async () => {
    const account = await live.newAccount(['news']);
    const sent = await runCliAsync(['send', '--channel', 'news', '--title', 'Hi'], envFor(account.secretKey));
    expect(sent.status, sent.stderr).toBe(0);
    expect(sent.stdout.trim()).toMatch(
      /^Sent notification ntf_\S+ to 1 subscriber of news \((queued|sending|sent)\)\.$/,
    );
  });

  it('schedules with --send-at and --local-time, and says so', async () => {
    const account = await live.newAccount(['news']);
    // A whole day a month ahead (sendAt may be at most 365 days ahead), in UTC with milliseconds as the API shows it.
    const sendAt = new Date(Math.ceil(Date.now() / 86_400_000 + 30) * 86_400_000).toISOString();
    const sent = await runCliAsync(
      ['send', '--channel', 'news', '--title', 'Later', '--send-at', sendAt, '--local-time', '08:30'],
      envFor(account.secretKey),
    );
    expect(sent.status, sent.stderr).toBe(0);
    expect(sent.stdout.trim()).toBe(
      `Sent notification ${(await notificationsOf(account.secretKey))[0].id} to 1 subscriber of news (scheduled, scheduled for ${sendAt}).`,
    );
    expect((await notificationsOf(account.secretKey))[0]).toMatchObject({
      status: 'scheduled',
      deliverAtLocalTime: '08:30',
    });
  });

  it('--server and --api-key win over CLARION_URL and CLARION_API_KEY', async () => {
    const account = await live.newAccount(['news']);
    const sent = await runCliAsync(
      [
        'send',
        '--channel',
        'news',
        '--title',
        'Flags',
        '--server',
        live.baseUrl,
        '--api-key',
        account.secretKey,
        '--json',
      ],
      {
        CLARION_URL: 'http://127.0.0.1:1',
        CLARION_API_KEY: 'clr_sk_not_this_one',
      },
    );
    expect(sent.status, sent.stderr).toBe(0);
    expect(sent.json.title).toBe('Flags');
  });

  it('sends once for one --idempotency-key, however often it runs', async () => {
    const account = await live.newAccount(['news']);
    const args = ['send', '--channel', 'news', '--title', 'Once', '--idempotency-key', 'cli-once-1', '--json'];
    const first = await runCliAsync(args, envFor(account.secretKey));
    const again = await runCliAsync(args, envFor(account.secretKey));
    expect(again.json.id).toBe(first.json.id);
    expect(await notificationsOf(account.secretKey)).toHaveLength(1);
  });
});

describe('clarion send refused', () => {
  it('a bad key: exit 1, the code on stderr, the envelope with --json', async () => {
    const sent = await runCliAsync(
      ['send', '--channel', 'news', '--title', 'Hi', '--json'],
      envFor('clr_sk_thisisnotakey'),
    );
    expect(sent.status).toBe(1);
    expect(sent.stderr).toMatch(/^clarion: unauthorized: .+ \(request \S+\)\n$/);
    expect(sent.json.error).toMatchObject({
      code: 'unauthorized',
      status: 401,
      requestId: expect.any(String),
      message: expect.not.stringContaining('unauthorized:'),
    });
  });

  it('a publishable key: forbidden', async () => {
    const account = await live.newAccount(['news']);
    const sent = await runCliAsync(['send', '--channel', 'news', '--title', 'Hi'], envFor(account.publishableKey));
    expect(sent.status).toBe(1);
    expect(sent.stderr).toMatch(/^clarion: forbidden: /);
  });

  it('bad content: validation_failed naming the field, and nothing is sent', async () => {
    const account = await live.newAccount(['news']);
    const sent = await runCliAsync(['send', '--channel', 'news', '--url', 'not a url'], envFor(account.secretKey));
    expect(sent.status).toBe(1);
    expect(sent.stderr).toMatch(/^clarion: validation_failed: /);
    expect(sent.stderr).toMatch(/\n {2}url: /);
    expect(await notificationsOf(account.secretKey)).toEqual([]);
  });

  it('an unknown channel: channel_not_found', async () => {
    const account = await live.newAccount(['news']);
    const sent = await runCliAsync(['send', '--channel', 'sports', '--title', 'Hi'], envFor(account.secretKey));
    expect(sent.status).toBe(1);
    expect(sent.stderr).toMatch(/^clarion: channel_not_found: /);
  });

  it('no key at all: exit 78 naming CLARION_API_KEY, before any request', async () => {
    const sent = await runCliAsync(['send', '--channel', 'news', '--title', 'Hi'], {
      CLARION_URL: live.baseUrl,
      CLARION_API_KEY: undefined,
    });
    expect(sent.status).toBe(78);
    expect(sent.stderr).toContain('CLARION_API_KEY');
  });

  it('a URL that is not http(s): exit 78 naming CLARION_URL', async () => {
    const sent = await runCliAsync(['send', '--channel', 'news', '--title', 'Hi'], {
      CLARION_URL: 'ftp://example.com',
      CLARION_API_KEY: 'clr_sk_x',
    });
    expect(sent.status).toBe(78);
    expect(sent.stderr).toContain('CLARION_URL');
  });

  it('a server that does not answer: exit 69, unreachable', async () => {
    const sent = await runCliAsync(
      ['send', '--channel', 'news', '--title', 'Hi', '--server', 'http://127.0.0.1:9', '--json'],
      { CLARION_API_KEY: 'clr_sk_x' },
    );
    expect(sent.status).toBe(69);
    expect(sent.json.error.code).toBe('unreachable');
    expect(sent.stderr).toMatch(/^clarion: cannot reach http:\/\/127\.0\.0\.1:9: .+ \(4 attempts\)$/m);
  });

  it('--badge that is not a whole number: refused before any request', async () => {
    const sent = await runCliAsync(
      ['send', '--channel', 'news', '--title', 'Hi', '--badge', 'three'],
      envFor('clr_sk_x'),
    );
    expect(sent.status).toBe(1);
    expect(sent.stderr).toContain('--badge must be a whole number');
  });

  it('--data without "=": refused before any request', async () => {
    const sent = await runCliAsync(
      ['send', '--channel', 'news', '--title', 'Hi', '--data', 'nokey'],
      envFor('clr_sk_x'),
    );
    expect(sent.status).toBe(1);
    expect(sent.stderr).toContain('--data takes key=value');
  });
});
