import type { Command } from 'commander';
import { MAX_THROTTLE_PER_MINUTE, MAX_TTL_SECONDS } from '../domain/limits.ts';
import { callApi, connect, withApiOptions, type ApiOptions } from './api-client.ts';
import { CliError, countOf, printResult } from './cli-output.ts';
import { parseWholeNumber } from './cli-parse.ts';

/** Each content flag (as commander names its option) and the field of POST /api/v1/notifications it fills. */
const CONTENT_FIELDS = {
  title: 'title',
  body: 'body',
  url: 'url',
  imageUrl: 'imageUrl',
  iconUrl: 'iconUrl',
  data: 'data',
  sendAt: 'sendAt',
  localTime: 'deliverAtLocalTime',
  sound: 'sound',
  badge: 'badge',
  ttl: 'ttlSeconds',
  priority: 'priority',
  localizations: 'localizations',
  silent: 'contentAvailable',
  ignoreFrequencyCap: 'ignoreFrequencyCap',
  ignoreQuietHours: 'ignoreQuietHours',
  throttle: 'throttlePerMinute',
  subtitle: 'subtitle',
  category: 'category',
  interruptionLevel: 'interruptionLevel',
  relevanceScore: 'relevanceScore',
  targetContentId: 'targetContentId',
  androidChannelId: 'androidChannelId',
  action: 'actions',
} as const;

type SendOptions = ApiOptions & { channel: string; idempotencyKey?: string } & {
  [flag in keyof typeof CONTENT_FIELDS]?: unknown;
};

/** `--data key=value`, repeatable, into the notification's data object. */
function collectData(pair: string, data: Record<string, string> = {}): Record<string, string> {
  const at = pair.indexOf('=');
  if (at < 1) throw new CliError(`--data takes key=value, not "${pair}"`, 'validation_failed');
  return { ...data, [pair.slice(0, at)]: pair.slice(at + 1) };
}

/**
 * `--action ID=TITLE` or `--action ID=TITLE=URL`, repeatable, into the notification's action buttons. The url starts
 * at the first "=http", so a title may hold "=" and a url its own query.
 */
function collectAction(
  text: string,
  actions: Array<{ id: string; title: string; url?: string }> = [],
): Array<{ id: string; title: string; url?: string }> {
  const at = text.indexOf('=');
  if (at < 1) throw new CliError(`--action takes ID=TITLE or ID=TITLE=URL, not "${text}"`, 'validation_failed');
  const rest = text.slice(at + 1);
  const urlAt = rest.search(/=https?:\/\//);
  const action =
    urlAt < 0
      ? { id: text.slice(0, at), title: rest }
      : { id: text.slice(0, at), title: rest.slice(0, urlAt), url: rest.slice(urlAt + 1) };
  return [...actions, action];
}

function parseJsonObject(flag: string): (text: string) => Record<string, unknown> {
  return (text) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new CliError(`${flag} takes a JSON object, not "${text}"`, 'validation_failed');
    return value as Record<string, unknown>;
  };
}

function parseScore(text: string): number {
  const score = Number(text);
  if (text.trim() === '' || !Number.isFinite(score) || score < 0 || score > 1)
    throw new CliError(`--relevance-score takes a number from 0 to 1, not "${text}"`, 'validation_failed');
  return score;
}

/** `clarion send`: POST /api/v1/notifications through the client package; the server checks the content. */
export function addSend(program: Command): void {
  withApiOptions(
    program
      .command('send')
      .description('send a notification to every subscriber of a channel, over HTTP with an API key')
      .requiredOption('--channel <code>', 'the channel code')
      .option('--title <text>', 'title (a notification needs a title, a body or both)')
      .option('--body <text>', 'text')
      .option('--url <url>', 'http(s) URL opened when the notification is tapped')
      .option('--image-url <url>', 'https URL of an image shown with it')
      .option('--icon-url <url>', 'https URL of the small icon browsers show')
      .option('--data <key=value>', 'a key/value string delivered to the app (repeatable)', collectData)
      .option('--send-at <time>', 'ISO 8601 time with offset: schedules it')
      .option('--local-time <HH:MM>', "deliver at this time of day in each subscriber's own time zone")
      .option('--sound <name>', 'sound name; "default" for the platform sound')
      .option('--badge <n>', 'iOS app icon badge number', (text: string) =>
        parseWholeNumber('--badge', text, 0, 99_999),
      )
      .option('--ttl <seconds>', 'how long the platform may hold it for an offline device', (text: string) =>
        parseWholeNumber('--ttl', text, 0, MAX_TTL_SECONDS),
      )
      .option('--priority <priority>', 'high (default) or normal')
      .option(
        '--localizations <json>',
        'title and body per language, as JSON: \'{"de": {"title": "Hallo"}, "fr-CA": {"title": "Allô"}}\'',
        parseJsonObject('--localizations'),
      )
      .option('--silent', 'a silent push: wakes the app, shows nothing (no title or body; browsers are skipped)')
      .option('--ignore-frequency-cap', "pass the channel's frequency cap (a transactional message; it still counts)")
      .option('--throttle <per-minute>', 'spread the fan-out: at most this many pushes a minute', (text: string) =>
        parseWholeNumber('--throttle', text, 1, MAX_THROTTLE_PER_MINUTE),
      )
      .option('--ignore-quiet-hours', "deliver at once, even inside the channel's quiet hours")
      .option('--subtitle <text>', 'iOS: a line under the title')
      .option('--category <id>', "iOS: the app's notification category (its action buttons)")
      .option('--interruption-level <level>', 'iOS: passive, active, time-sensitive or critical')
      .option('--relevance-score <0-1>', 'iOS: where the notification summary puts it', parseScore)
      .option('--target-content-id <id>', 'iOS: the window or scene a tap brings forward')
      .option('--android-channel-id <id>', "Android: the app's notification channel to show it in")
      .option(
        '--action <id=title[=url]>',
        'an action button (repeatable, up to 3): a tap reports its id, and opens its url if it has one',
        collectAction,
      )
      .option(
        '--idempotency-key <key>',
        'repeat the command with the same key and it sends once (default: a new key each run)',
      ),
  ).action(async (options: SendOptions) => {
    const notification: Record<string, unknown> & { channelCode: string } = { channelCode: options.channel };
    for (const [flag, field] of Object.entries(CONTENT_FIELDS)) {
      const value = options[flag as keyof typeof CONTENT_FIELDS];
      if (value !== undefined) notification[field] = value;
    }
    const connection = await connect(options);
    const sent = await callApi(connection, (client) =>
      client.send(notification, options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
    );
    const when = sent.sendAt && sent.status === 'scheduled' ? `, scheduled for ${sent.sendAt}` : '';
    printResult(options, sent, [
      `Sent notification ${sent.id} to ${countOf(sent.recipientCount, 'subscriber')} of ${sent.channelCode} (${sent.status}${when}).`,
    ]);
  });
}
