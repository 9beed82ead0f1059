// Bulk import: `clarion subscribers import` of an NDJSON file of N subscribers (half iOS with a time
// zone, half Android) into a fresh channel, then the same file again (every line an update), each as the operator runs
// it: a separate process, start-up included. Reports the command's own rows/s (wall time from its start to its last
// commit) and rows per CPU-second of the process (user + system, from /usr/bin/time), which a busy machine disturbs less.
//
//   node --import tsx bench/import-subscribers.ts [--rows 200000] [--no-events] [--webhook] [--postgres URL] [--quick]
//
// --webhook gives the account a webhook endpoint first: on SQLite the import writes `subscriber.created` events only
// for an account that has one (src/cli/subscribers-import.ts), so this measures the import with its events.
//
// Ends with BENCH_RESULT {"rows", "firstRowsPerSecond", "firstRowsPerCpuSecond", "againRowsPerSecond", "againRowsPerCpuSecond"}.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createAccount } from '../src/store/accounts-queries.ts';
import { createChannel } from '../src/store/channels-queries.ts';
import { insertWebhook } from '../src/store/webhooks-queries.ts';
import { newId } from '../src/domain/ids.ts';
import { createBenchDatabase } from './harness/bench-database.ts';
import { benchDevice } from './harness/fanout-channel.ts';
import { repoRoot } from './harness/repo-root.ts';
import { printBenchResult } from './harness/bench-result.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    'no-events': { type: 'boolean', default: false },
    webhook: { type: 'boolean', default: false },
    postgres: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const rows = values.quick ? 5000 : Number(values.rows);
const TIME = '/usr/bin/time';

const bench = await createBenchDatabase(values.postgres);
const result: Record<string, unknown> = {
  dialect: bench.store.dialect,
  rows,
  events: !values['no-events'],
  webhook: values.webhook,
};
try {
  const now = Date.now();
  const account = await createAccount(bench.store.db, { name: 'import', plan: 'business', now });
  await createChannel(bench.store.db, {
    accountId: account.id,
    code: 'imported',
    name: 'imported',
    description: null,
    now,
  });
  if (values.webhook) {
    await insertWebhook(bench.store.db, {
      id: newId('webhook', now),
      accountId: account.id,
      url: 'https://hooks.example.com/',
      description: null,
      eventTypes: ['*'],
      sealedSecret: 'unused',
      now,
    });
  }
  const file = join(bench.env.CLARION_DATA_DIR!, 'subscribers.ndjson');
  const lines: string[] = [];
  for (let n = 0; n < rows; n += 1) {
    const device = benchDevice(n);
    lines.push(
      JSON.stringify({
        channel: 'imported',
        ...device,
        ...(device.platform === 'ios' ? { timezone: 'Europe/Berlin', locale: 'de-DE' } : { externalId: `user-${n}` }),
      }),
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  for (const run of ['first', 'again'] as const) {
    const args = [
      ...(process.env.BENCH_CHILD_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      join(repoRoot, 'bin/clarion.js'),
      'subscribers',
      'import',
      file,
      '--account',
      account.id,
      '--json',
      ...(values['no-events'] ? ['--no-events'] : []),
    ];
    const timed = existsSync(TIME);
    const child = timed
      ? spawnSync(TIME, ['-f', 'CPU %U %S', process.execPath, ...args], {
          env: { ...process.env, ...bench.env },
          encoding: 'utf8',
        })
      : spawnSync(process.execPath, args, { env: { ...process.env, ...bench.env }, encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`import failed:\n${child.stdout}\n${child.stderr}`);
    const output = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { rowsPerSecond: number; seconds: number };
    const cpu = /CPU ([\d.]+) ([\d.]+)/.exec(child.stderr);
    const cpuSeconds = cpu ? Number(cpu[1]) + Number(cpu[2]) : null;
    result[`${run}RowsPerSecond`] = output.rowsPerSecond;
    result[`${run}Seconds`] = output.seconds;
    result[`${run}RowsPerCpuSecond`] = cpuSeconds === null ? null : Math.round(rows / cpuSeconds);
    process.stderr.write(
      `${run}: ${output.rowsPerSecond} rows/s over ${output.seconds} s; process CPU ${cpuSeconds ?? '?'} s\n`,
    );
  }
} finally {
  await bench.drop();
}
printBenchResult(result);
