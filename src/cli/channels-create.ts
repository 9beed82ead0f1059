import type { Command } from 'commander';
import { CHANNEL_CODE_RULE, isChannelCode } from '../domain/channel-code.ts';
import { toIso } from '../domain/clock.ts';
import { parseLocalTime } from '../domain/local-time.ts';
import { quietHoursOf, type QuietHours } from '../domain/quiet-hours.ts';
import {
  FREQUENCY_CAP_MAX_COUNT,
  FREQUENCY_CAP_MAX_PERIOD_SECONDS,
  FREQUENCY_CAP_MIN_PERIOD_SECONDS,
  frequencyCapOf,
  parseFrequencyCap,
  type FrequencyCap,
} from '../domain/frequency-cap.ts';
import { findAccount } from '../store/accounts-queries.ts';
import { appForNewChannel } from '../store/apps-queries.ts';
import { ChannelCodeTakenError, createChannel } from '../store/channels-queries.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

function readFrequencyCap(text: string): FrequencyCap {
  const cap = parseFrequencyCap(text);
  if (!cap)
    throw new CliError(
      `--frequency-cap takes COUNT/SECONDS, COUNT 1 to ${FREQUENCY_CAP_MAX_COUNT} and SECONDS ${FREQUENCY_CAP_MIN_PERIOD_SECONDS} to ${FREQUENCY_CAP_MAX_PERIOD_SECONDS}, not "${text}"`,
      'validation_failed',
    );
  return cap;
}

function readQuietHours(text: string): QuietHours {
  const [start = '', end = ''] = text.split('-');
  if (parseLocalTime(start) === null || parseLocalTime(end) === null || start === end)
    throw new CliError(
      `--quiet-hours takes HH:MM-HH:MM, two different 24-hour times, not "${text}"`,
      'validation_failed',
    );
  return { start, end };
}

export function addChannelsCreate(channels: Command): void {
  channels
    .command('create')
    .description('create a channel in an account')
    .requiredOption('--account <id>', 'account id (acc_…)')
    .requiredOption('--code <code>', 'the code API requests use (lower-case letters, digits, _ and -)')
    .option('--name <name>', 'display name (defaults to the code)')
    .option('--description <text>', 'description')
    .option(
      '--app <id>',
      "the app (app_…) whose credentials deliver the channel's pushes; default: the account's first app, else the built-in one",
    )
    .option(
      '--frequency-cap <count/seconds>',
      'at most COUNT notifications per subscriber in any SECONDS, e.g. 3/86400 (docs/api.md, "Frequency caps")',
      readFrequencyCap,
    )
    .option(
      '--quiet-hours <start-end>',
      "hold pushes from START to END (HH:MM-HH:MM, e.g. 22:00-07:00) in each subscriber's time zone",
      readQuietHours,
    )
    .option('--json', 'print one JSON object')
    .action(
      async (options: {
        account: string;
        code: string;
        name?: string;
        description?: string;
        app?: string;
        frequencyCap?: FrequencyCap;
        quietHours?: QuietHours;
        json?: boolean;
      }) => {
        if (!isChannelCode(options.code)) throw new CliError(`--code: ${CHANNEL_CODE_RULE}`, 'validation_failed');
        if (options.name !== undefined && (options.name.trim() === '' || options.name.length > 100)) {
          throw new CliError('--name must be 1 to 100 characters', 'validation_failed');
        }
        const channel = await withStore(async (store) => {
          if (!(await findAccount(store.db, options.account)))
            throw new CliError(`no account ${options.account}`, 'not_found');
          const app = await appForNewChannel(store.db, options.account, options.app);
          if (app === 'not_found')
            throw new CliError(`no app ${options.app} in account ${options.account}`, 'not_found');
          try {
            return await createChannel(store.db, {
              accountId: options.account,
              code: options.code,
              name: options.name?.trim() ?? options.code,
              description: options.description ?? null,
              appId: app.appId,
              frequencyCap: options.frequencyCap ?? null,
              quietHours: options.quietHours ?? null,
              now: Date.now(),
            });
          } catch (error) {
            if (error instanceof ChannelCodeTakenError) throw new CliError(error.message, 'conflict');
            throw error;
          }
        });
        const result = {
          id: channel.id,
          accountId: channel.account_id,
          code: channel.code,
          name: channel.name,
          description: channel.description,
          appId: channel.app_id,
          frequencyCap: frequencyCapOf(channel),
          quietHours: quietHoursOf(channel),
          createdAt: toIso(channel.created_at),
        };
        printResult(options, result, [`Created channel ${channel.code} (${channel.id}).`]);
      },
    );
}
