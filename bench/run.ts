// `npm run bench`: the benchmarks in one command, nothing built by hand. Each script in the table below
// runs in a child process of its own (it starts its own fakes, servers and load) and ends with one stdout line
// `BENCH_RESULT <json>` (bench/harness/bench-result.ts); the rounds are interleaved (A B C, A B C, …) so a noisy
// neighbour spreads over all of them, and the table gives each figure's median and range over the rounds. A second
// table divides figures by their anchors measured in the same run (a Fastify hello-world, a bare sender, SQLite), so
// each is read against the floor under it on the same machine at the same load.
//
//   npm run bench [-- --rounds 3] [-- --postgres postgres://postgres@127.0.0.1:5432/test] [-- --only accept]
//   npm run bench -- --quick        # one short round of each (CI: proves it works; the figures mean little)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCH_RESULT_PREFIX, median } from './harness/bench-result.ts';

/**
 * The benchmarks, in running order. A script listed here must run alone, accept `--quick` (and `--postgres URL`
 * when `postgres` is set) and print BENCH_RESULT last. Scripts not (yet) in the tree are skipped with a note.
 */
const benchmarks: Array<{ script: string; args?: string[]; measures: string; postgres: boolean }> = [
  {
    script: 'startup.ts',
    args: ['--variants', 'compiled,hello'],
    measures: 'clarion serve start to /readyz and idle RSS, beside a Fastify hello-world (it builds dist/ first)',
    postgres: false,
  },
  {
    script: 'accept-as-users-run.ts',
    measures:
      'accept path as `npm start` runs it (both roles, log to a file), beside the log discarded and --api alone',
    postgres: false,
  },
  {
    script: 'accept-throughput.ts',
    measures: 'accept path: statements, requests per CPU-second, p99 at 1,000 req/s',
    postgres: true,
  },
  { script: 'accept-cpu.ts', measures: 'accept path CPU per request, in one process (inject)', postgres: true },
  {
    script: 'receipts-cpu.ts',
    measures: 'POST /receipts CPU per report against the accept path, and the bytes a receipt adds',
    postgres: true,
  },
  { script: 'accept-delivery.ts', measures: 'accept beside a fan-out, latency to first push', postgres: true },
  { script: 'fanout-cpu.ts', measures: 'fan-out CPU per push against a bare client', postgres: true },
  {
    script: 'fanout-cpu.ts',
    args: ['--platforms', 'web'],
    measures: 'Web Push fan-out CPU per push against a bare web sender',
    postgres: true,
  },
  {
    script: 'fanout-cpu.ts',
    args: ['--platforms', 'ios,android,web'],
    measures: 'fan-out CPU per push with a third of the channel on the web',
    postgres: true,
  },
  { script: 'fanout-db-time.ts', measures: 'database work per push', postgres: false },
  {
    script: 'throttled-fanout.ts',
    measures: 'a throttled fan-out (throttlePerMinute) against its planned duration',
    postgres: true,
  },
  {
    script: 'live-activity-broadcast.ts',
    measures: 'one Live Activity update, per token against one broadcast channel',
    postgres: true,
  },
  {
    script: 'sqlite-drivers.ts',
    measures: 'the SQLite drivers this Node offers, on the accept and fan-out statements',
    postgres: false,
  },
];

/** A benchmark's name in the table: its script, and its arguments when it runs more than once. */
function labelOf(benchmark: (typeof benchmarks)[number]): string {
  return [benchmark.script, ...(benchmark.args ?? [])].join(' ');
}

/** A figure of one benchmark: its label (labelOf) and the figure's name in its BENCH_RESULT. */
type FigureRef = [benchmark: string, figure: string];

/**
 * Figures against their anchors, each a row of the ratio table: the median of `numerator` over the median of
 * `denominator`, measured in the same run. A row prints only when both figures were measured (PostgreSQL's only with
 * --postgres). Accept req/s per core is a figure of accept-throughput.ts itself.
 */
const ratios: Array<{ label: string; numerator: FigureRef; denominator: FigureRef; target: string }> = [
  {
    label: 'start-up CPU to /readyz, Clarion / Fastify hello-world',
    numerator: ['startup.ts --variants compiled,hello', 'compiledReadyCpuMs'],
    denominator: ['startup.ts --variants compiled,hello', 'helloReadyCpuMs'],
    target: 'hello-world is the floor; start < 400 ms',
  },
  {
    label: 'start-up wall time to /readyz, Clarion / Fastify hello-world',
    numerator: ['startup.ts --variants compiled,hello', 'compiledReadyMs'],
    denominator: ['startup.ts --variants compiled,hello', 'helloReadyMs'],
    target: 'hello-world is the floor; start < 400 ms',
  },
  {
    label: 'idle RSS, Clarion / Fastify hello-world',
    numerator: ['startup.ts --variants compiled,hello', 'compiledIdleRssMb'],
    denominator: ['startup.ts --variants compiled,hello', 'helloIdleRssMb'],
    target: 'hello-world is the floor; idle RSS < 80 MB',
  },
  {
    label: 'fan-out CPU per push (APNs, FCM), Clarion / bare client',
    numerator: ['fanout-cpu.ts', 'clarionCpuUsPerPush'],
    denominator: ['fanout-cpu.ts', 'bareCpuUsPerPush'],
    target: '≤ 1.1',
  },
  {
    label: 'fan-out CPU per push (Web Push), Clarion / bare web sender',
    numerator: ['fanout-cpu.ts --platforms web', 'clarionCpuUsPerPush'],
    denominator: ['fanout-cpu.ts --platforms web', 'bareCpuUsPerPush'],
    target: '≤ 1.1',
  },
  {
    label: 'fan-out pushes/s (Web Push), Clarion / bare web sender',
    numerator: ['fanout-cpu.ts --platforms web', 'pushesPerSecond'],
    denominator: ['fanout-cpu.ts --platforms web', 'barePushesPerSecond'],
    target: '≥ 0.9: the push service, not Clarion, sets the pace',
  },
  {
    label: "fan-out pushes/s, Web Push / APNs and FCM (Clarion's)",
    numerator: ['fanout-cpu.ts --platforms web', 'pushesPerSecond'],
    denominator: ['fanout-cpu.ts', 'pushesPerSecond'],
    target: '≥ 0.9',
  },
  {
    label: 'accept server CPU per request, PostgreSQL / SQLite',
    numerator: ['accept-throughput.ts', 'postgres server CPU per request (µs)'],
    denominator: ['accept-throughput.ts', 'sqlite server CPU per request (µs)'],
    target: '≤ 1.5',
  },
  {
    label: 'accept server CPU per request at an even 1,000 req/s, PostgreSQL / SQLite',
    numerator: ['accept-throughput.ts', 'postgres server CPU per request at an even 1,000 req/s (µs)'],
    denominator: ['accept-throughput.ts', 'sqlite server CPU per request at an even 1,000 req/s (µs)'],
    target: '≤ 1.5',
  },
];
for (const { label, numerator, denominator } of ratios)
  for (const [benchmark] of [numerator, denominator])
    if (!benchmarks.some((listed) => labelOf(listed) === benchmark))
      throw new Error(`ratio "${label}": no benchmark ${benchmark} in the table`);

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    postgres: { type: 'string' },
    only: { type: 'string' },
  },
});
const rounds = Number(values.rounds ?? (values.quick ? 1 : 3));
const benchDir = dirname(fileURLToPath(import.meta.url));
const selected = benchmarks.filter((benchmark) => (values.only ? benchmark.script.includes(values.only) : true));
const present = selected.filter((benchmark) => existsSync(join(benchDir, benchmark.script)));
for (const missing of selected.filter((benchmark) => !present.includes(benchmark)))
  console.error(`bench: ${missing.script} is not in this tree; skipped`);

const results = new Map<string, Array<Record<string, unknown>>>();
const failures: string[] = [];
const started = Date.now();
for (let round = 1; round <= rounds; round += 1) {
  for (const benchmark of present) {
    const label = labelOf(benchmark);
    const args = ['--import', 'tsx', join(benchDir, benchmark.script), ...(benchmark.args ?? [])];
    if (values.quick) args.push('--quick');
    if (values.postgres && benchmark.postgres) args.push('--postgres', values.postgres);
    console.error(`bench: round ${round}/${rounds}: ${label}`);
    const outcome = await runScript(args);
    if (outcome.result) results.set(label, [...(results.get(label) ?? []), outcome.result]);
    else failures.push(`${label} (round ${round}): ${outcome.error}`);
  }
}

const lines: string[] = [];
lines.push(
  `Benchmarks, ${new Date().toISOString()}, node ${process.version}, ${rounds} round(s)${values.quick ? ' (--quick)' : ''}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
lines.push('');
lines.push('| benchmark | figure | median | range | runs |');
lines.push('|---|---|---|---|---|');
/** Keyed by `<benchmark label> <figure>`: two runs of one script have figures of the same names. */
const medians = new Map<string, number>();
for (const benchmark of present) {
  const label = labelOf(benchmark);
  const runs = results.get(label) ?? [];
  const names = [...new Set(runs.flatMap((run) => Object.keys(run)))];
  for (const name of names) {
    const numbers = runs
      .map((run) => run[name])
      .filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
    if (numbers.length === 0) continue;
    const middle = median(numbers);
    medians.set(`${label} ${name}`, middle);
    lines.push(
      `| ${label} | ${name} | ${format(middle)} | ${format(Math.min(...numbers))}–${format(Math.max(...numbers))} | ${numbers.length} |`,
    );
  }
}
const ratioLines: string[] = [];
for (const { label, numerator, denominator, target } of ratios) {
  const top = medians.get(numerator.join(' '));
  const bottom = medians.get(denominator.join(' '));
  if (top === undefined || bottom === undefined || bottom === 0) continue;
  const divides =
    numerator[0] === denominator[0]
      ? `${numerator[0]}: ${numerator[1]} / ${denominator[1]}`
      : `${numerator[0]}: ${numerator[1]} / ${denominator[0]}: ${denominator[1]}`;
  ratioLines.push(`| ${label} | ${divides} | ${format(top / bottom)} | ${target} |`);
}
if (ratioLines.length > 0) {
  lines.push('');
  lines.push('| ratio | divides (medians) | value | target |');
  lines.push('|---|---|---|---|');
  lines.push(...ratioLines);
}
console.log(lines.join('\n'));
if (failures.length > 0) {
  console.log(`\nFailed:\n${failures.map((failure) => `- ${failure}`).join('\n')}`);
  process.exitCode = 1;
}

/** Runs one script; its stderr passes through (progress), its stdout is searched for the last BENCH_RESULT line. */
function runScript(args: string[]): Promise<{ result?: Record<string, unknown>; error?: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('exit', (code) => {
      const line = stdout
        .split('\n')
        .filter((text) => text.startsWith(BENCH_RESULT_PREFIX))
        .pop();
      if (code !== 0 || !line) return resolve({ error: `exited with ${code}${line ? '' : ', no BENCH_RESULT line'}` });
      try {
        resolve({ result: JSON.parse(line.slice(BENCH_RESULT_PREFIX.length)) as Record<string, unknown> });
      } catch (error) {
        resolve({ error: `unreadable BENCH_RESULT: ${String(error)}` });
      }
    });
  });
}

function format(value: number): string {
  return Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en-US') : Number(value.toPrecision(3)).toString();
}
