import type { Command } from 'commander';
import { isId } from '../domain/ids.ts';
import { platforms, type Platform } from '../domain/device-token.ts';
import { PAGE_LIMIT_MAX } from '../domain/limits.ts';
import { subscriberDetails } from '../http/endpoints/subscribers/subscriber-access.ts';
import { findChannelByCode } from '../store/channels-queries.ts';
import { listSubscribers } from '../store/subscriber-directory-queries.ts';
import { CliError, printResult } from './cli-output.ts';
import { parseWholeNumber } from './cli-parse.ts';
import { withStore } from './cli-store.ts';

interface ListOptions {
  account: string;
  channel?: string;
  externalId?: string;
  platform?: string;
  status?: string;
  tag?: string;
  limit: string;
  cursor?: string;
  json?: boolean;
}

/**
 * `clarion subscribers list`: who is subscribed, newest first, with the filters of GET /api/v1/subscribers and the
 * same view of each subscriber (never a token beyond its prefix). Pages like the API: `--cursor` takes `nextCursor`.
 */
export function addSubscribersList(subscribers: Command): void {
  subscribers
    .command('list')
    .description("list an account's subscribers, newest first (never their tokens)")
    .requiredOption('--account <id>', 'account id (acc_…)')
    .option('--channel <code>', 'only this channel')
    .option('--external-id <id>', "only this person's devices")
    .option('--platform <platform>', 'ios, android or web')
    .option('--status <status>', 'active or unsubscribed')
    .option('--tag <tag>', 'only subscribers with this tag')
    .option('--limit <n>', `at most this many, 1–${PAGE_LIMIT_MAX}`, '50')
    .option('--cursor <id>', 'the nextCursor of a previous page')
    .option('--json', 'print one JSON object')
    .action(async (options: ListOptions) => {
      const limit = parseWholeNumber('--limit', options.limit, 1, PAGE_LIMIT_MAX);
      if (options.platform !== undefined && !platforms.includes(options.platform as Platform))
        throw new CliError('--platform must be ios, android or web', 'validation_failed');
      if (options.status !== undefined && options.status !== 'active' && options.status !== 'unsubscribed')
        throw new CliError('--status must be active or unsubscribed', 'validation_failed');
      if (options.cursor !== undefined && !isId('subscriber', options.cursor))
        throw new CliError('--cursor must be the nextCursor of a previous page', 'validation_failed');
      const { rows, nextCursor } = await withStore(async (store) => {
        let channelIds: string[] | null = null;
        if (options.channel !== undefined) {
          const channel = await findChannelByCode(store.db, options.account, options.channel);
          if (!channel)
            throw new CliError(`no channel "${options.channel}" in account ${options.account}`, 'channel_not_found');
          channelIds = [channel.id];
        }
        const found = await listSubscribers(store.db, {
          accountId: options.account,
          channelIds,
          platform: (options.platform as Platform | undefined) ?? null,
          status: (options.status as 'active' | 'unsubscribed' | undefined) ?? null,
          externalId: options.externalId ?? null,
          tag: options.tag ?? null,
          createdAfter: null,
          createdBefore: null,
          before: options.cursor ?? null,
          limit: limit + 1,
        });
        const page = found.slice(0, limit);
        return {
          rows: await subscriberDetails(store.db, page),
          nextCursor: found.length > limit ? page[page.length - 1]!.id : null,
        };
      });
      printResult(
        options,
        { subscribers: rows, nextCursor },
        rows.length === 0
          ? ['No subscribers.']
          : [
              ...rows.map(
                (row) =>
                  `${row.id}  ${row.channelCode.padEnd(16)}  ${row.platform.padEnd(7)}  ${row.status.padEnd(12)}  ${row.externalId ?? '-'}  ${row.tags.join(',')}`,
              ),
              ...(nextCursor ? [`More: --cursor ${nextCursor}`] : []),
            ],
      );
    });
}
