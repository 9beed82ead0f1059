import type { Command } from 'commander';
import { callApi, connect, withApiOptions, type ApiOptions } from './api-client.ts';
import { CliError, printResult } from './cli-output.ts';

interface SendOptions extends ApiOptions {
  channel: string;
  title?: string;
  body?: string;
  url?: string;
  imageUrl?: string;
  data?: Record<string, string>;
  sendAt?: string;
  priority?: 'normal' | 'high';
  idempotencyKey?: string;
}

/** `--data key=value`, repeatable, into the notification's data object. */
function collectData(pair: string, data: Record<string, string> = {}): Record<string, string> {
  const at = pair.indexOf('=');
  if (at < 1) throw new CliError(`--data takes key=value, not "${pair}"`, 'validation_failed');
  return { ...data, [pair.slice(0, at)]: pair.slice(at + 1) };
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
      .option('--data <key=value>', 'a key/value string delivered to the app (repeatable)', collectData)
      .option('--send-at <time>', 'ISO 8601 time with offset: schedules it')
      .option('--priority <priority>', 'high (default) or normal')
      .option('--idempotency-key <key>', 'repeat the command with the same key and it sends once (default: a new key each run)'),
  ).action(async (options: SendOptions) => {
    const notification = {
      channelCode: options.channel,
      ...(options.title !== undefined ? { title: options.title } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.url !== undefined ? { url: options.url } : {}),
      ...(options.imageUrl !== undefined ? { imageUrl: options.imageUrl } : {}),
      ...(options.data !== undefined ? { data: options.data } : {}),
      ...(options.sendAt !== undefined ? { sendAt: options.sendAt } : {}),
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
    };
    const connection = await connect(options);
    const sent = await callApi(connection, (client) => client.send(notification, options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}));
    const when = sent.sendAt && sent.status === 'scheduled' ? `, scheduled for ${sent.sendAt}` : '';
    printResult(options, sent, [`Sent notification ${sent.id} to ${sent.recipientCount} subscribers of ${sent.channelCode} (${sent.status}${when}).`]);
  });
}
