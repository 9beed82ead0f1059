import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import { findAccount } from '../store/accounts-queries.ts';
import { findChannelByCode, type Channel } from '../store/channels-queries.ts';
import type { Store } from '../store/database.ts';
import type { Database } from '../store/schema.ts';
import { importSubscribers, type SubscriberImport } from '../store/subscribers-queries.ts';
import { countWebhookEndpoints } from '../store/webhooks-queries.ts';
import { CliError, countOf, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';
import { parseImportLine } from './subscriber-import-line.ts';

/**
 * Rows per transaction. Each one holds SQLite's write lock while it runs, so a server beside the import waits at most
 * one transaction (~0.1 s at 5,000 rows on the 2-core machine, bench/import-subscribers.ts); larger ones were no
 * faster. A crash loses at most the transaction under way, and importing the file again is harmless (idempotent).
 */
const ROWS_PER_TRANSACTION = 5000;
/** Problems listed before "… and N more": enough to see a pattern, not a wall of text for a file of wrong lines. */
const MAX_LISTED_PROBLEMS = 20;

export function addSubscribersImport(subscribers: Command): void {
  subscribers
    .command('import')
    .description(
      'register many devices from an NDJSON file (one subscriber per line), as POST /api/v1/subscribers would',
    )
    .argument(
      '<file>',
      'NDJSON file: {"channel", "platform", "token", "pushToStartToken"?, "timezone"?, "locale"?, "externalId"?} per line',
    )
    .requiredOption('--account <id>', 'account id (acc_…) whose channels the lines name')
    .option('--no-events', 'record no subscriber.created events (devices your webhook receivers already know)')
    .option('--json', 'print one JSON object')
    .action(async (file: string, options: { account: string; events: boolean; json?: boolean }) => {
      const started = performance.now();
      // Pass 1 checks every line before anything is written: a file with a bad line imports nothing.
      const problems: string[] = [];
      const firstUse = new Map<string, number>();
      let lines = 0;
      for await (const { number, text } of readLines(file)) {
        lines += 1;
        const parsed = parseImportLine(text);
        if (!parsed.ok) problems.push(...parsed.problems.map((problem) => `line ${number}: ${problem}`));
        else if (!firstUse.has(parsed.channelCode)) firstUse.set(parsed.channelCode, number);
      }
      if (problems.length > 0) throw new CliError(problemList(file, problems), 'validation_failed');

      const totals = await withStore(async (store) => {
        if (!(await findAccount(store.db, options.account)))
          throw new CliError(`no account ${options.account}`, 'not_found');
        const channels = new Map<string, Channel>();
        const missing: string[] = [];
        for (const [code, line] of firstUse) {
          const channel = await findChannelByCode(store.db, options.account, code);
          if (channel) channels.set(code, channel);
          else missing.push(`line ${line}: channel: no channel "${code}" in account ${options.account}`);
        }
        if (missing.length > 0) throw new CliError(problemList(file, missing), 'not_found');
        await store.beginBulkWrites();
        const totals = await importFile(store, file, { accountId: options.account, channels, events: options.events });
        await store.endBulkWrites();
        return totals;
      });
      const seconds = (performance.now() - started) / 1000;
      const result = {
        file,
        lines,
        ...totals,
        seconds: Number(seconds.toFixed(3)),
        rowsPerSecond: Math.round(lines / seconds),
      };
      printResult(options, result, [
        `Imported ${countOf(lines, 'line')} from ${file} in ${result.seconds} s (${result.rowsPerSecond}/s): ${totals.created} created, ${totals.reactivated} reactivated, ${totals.updated} updated.`,
      ]);
    });
}

/** Pass 2: the lines again, in transactions of ROWS_PER_TRANSACTION, each grouped by channel. */
async function importFile(
  store: Store,
  file: string,
  input: { accountId: string; channels: Map<string, Channel>; events: boolean },
): Promise<{ created: number; reactivated: number; updated: number }> {
  const totals = { created: 0, reactivated: 0, updated: 0 };
  let pending = new Map<string, SubscriberImport[]>();
  let count = 0;
  const flush = async () => {
    const batch = pending;
    pending = new Map();
    count = 0;
    const now = Date.now();
    await store.db.transaction().execute(async (trx) => {
      const events = input.events && (await eventsCanReachWebhooks(store, trx, input.accountId));
      for (const [code, rows] of batch) {
        const channel = input.channels.get(code)!;
        const done = await importSubscribers(trx, {
          accountId: input.accountId,
          channelId: channel.id,
          channelCode: code,
          rows,
          events,
          now,
        });
        totals.created += done.created;
        totals.reactivated += done.reactivated;
        totals.updated += done.updated;
      }
    });
  };
  for await (const { text } of readLines(file)) {
    const parsed = parseImportLine(text);
    // Checked in pass 1; a file changed in between fails here rather than importing an unchecked line.
    if (!parsed.ok) throw new CliError(`${file} changed while importing: ${parsed.problems[0]}`, 'validation_failed');
    const rows = pending.get(parsed.channelCode) ?? [];
    rows.push(parsed.row);
    pending.set(parsed.channelCode, rows);
    count += 1;
    if (count >= ROWS_PER_TRANSACTION) await flush();
  }
  if (count > 0) await flush();
  return totals;
}

/**
 * Whether this transaction's `subscriber.created` events could ever reach a webhook. Events exist for the relay alone
 * (docs/webhooks.md, "How events become deliveries"), which sends an event only to endpoints of its account created no
 * later than the event. On SQLite the transaction holds the database's only write lock (BEGIN IMMEDIATE), so an account
 * without any endpoint (whatever its status or event types: it may be re-enabled or subscribed later) at this point
 * cannot gain one created no later than these events: they would never be sent, and skipping them saves ~10 µs of
 * SQLite CPU per new subscriber, a fifth of the import (docs/performance.md, "Subscriber import"). Where writers run
 * side by side (PostgreSQL) an endpoint created concurrently, stamped before this transaction's `now` but not
 * committed yet, would be invisible here and still eligible, so the events are always written there.
 */
async function eventsCanReachWebhooks(store: Store, trx: Kysely<Database>, accountId: string): Promise<boolean> {
  return !store.serialWriters || (await countWebhookEndpoints(trx, accountId)) > 0;
}

/** The file's non-blank lines with their 1-based numbers. */
async function* readLines(file: string): AsyncGenerator<{ number: number; text: string }> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (error) => reject(new CliError(`cannot read ${file}: ${error.message}`, 'not_found')));
  });
  await opened;
  let number = 0;
  for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
    number += 1;
    if (text.trim() !== '') yield { number, text };
  }
}

function problemList(file: string, problems: string[]): string {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  const more = problems.length > listed.length ? [`… and ${problems.length - listed.length} more`] : [];
  return [`${file}: nothing imported; fix these lines and run it again:`, ...listed, ...more].join('\n');
}
