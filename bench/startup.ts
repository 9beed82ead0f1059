// Start-up time to a ready `/readyz` and idle memory of `clarion serve`: the TypeScript sources
// through tsx (what `clarion` runs while dist/ is stale) against the compiled build in dist/, interleaved, each
// start on a fresh SQLite data directory (so every start also creates the database and runs all migrations).
//
//   node --import tsx bench/startup.ts [--runs 5] [--idle-seconds 10] [--variants sources,compiled] [--quick]
//   node --import tsx bench/startup.ts --variants compiled,hello      # what `npm run bench` runs
//   node --import tsx bench/startup.ts --variants compiled,baseline --baseline ../other-checkout
//
// `--baseline DIR` adds the compiled build of another checkout (its dist/, built there beforehand) as the variant
// `baseline`, interleaved with this one's: before and after a change on the same machine at the same load. The variant
// `hello` is a Fastify hello-world (harness/hello-world-server.mjs), measured the same way: what Node and Fastify
// alone cost on this machine, the floor that `compiled` is divided by in `npm run bench`.
//
// Time is from spawn to the first 200 from /readyz, polled every 10 ms. On a busy machine that wall time mostly
// measures the neighbours, so the CPU time (user + system) the process used until it answered is recorded too: on an
// idle machine start-up takes about that long, since it runs on one thread. Idle RSS is VmRSS read from /proc after
// the server has answered and then sat idle for --idle-seconds (nothing else is sent to it): 10 by default, as V8's
// memory reducer gives back the young generation's pages that start-up grew about 10 s after the process goes idle.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median, printBenchResult, roundTo } from './harness/bench-result.ts';
import { buildClarion, freePort } from './harness/clarion-process.ts';
import { processCpuSeconds, processRssMb } from './harness/process-usage.ts';
import { repoRoot } from './harness/repo-root.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'idle-seconds': { type: 'string', default: '10' },
    variants: { type: 'string', default: 'sources,compiled' },
    baseline: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const runs = values.quick ? 1 : Number(values.runs);
const idleMs = (values.quick ? 1 : Number(values['idle-seconds'])) * 1000;

/**
 * How each variant starts: its node arguments. `compiled` and `baseline` run the `clarion` command (bin/clarion.js),
 * as `npm start` does: the build's bundle when it made one (scripts/server-bundle.js), else dist/cli/main.js.
 */
const variants = {
  sources: ['--import', 'tsx', join(repoRoot, 'src/cli/main.ts'), 'serve'],
  compiled: [join(repoRoot, 'bin/clarion.js'), 'serve'],
  baseline: [join(resolve(values.baseline ?? repoRoot), 'bin/clarion.js'), 'serve'],
  hello: [join(repoRoot, 'bench/harness/hello-world-server.mjs')],
} as const;
type Variant = keyof typeof variants;
const chosen = values.variants.split(',') as Variant[];
for (const variant of chosen) {
  if (!(variant in variants)) throw new Error(`--variants: unknown variant ${variant}`);
}
if (chosen.includes('baseline') && values.baseline === undefined)
  throw new Error('--variants baseline needs --baseline DIR');

interface Sample {
  readyMs: number;
  readyCpuMs: number;
  idleRssMb: number;
}

async function measureOnce(variant: Variant): Promise<Sample> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clarion-bench-startup-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, variants[variant], {
    cwd: repoRoot,
    env: { ...process.env, CLARION_PORT: String(port), CLARION_HOST: '127.0.0.1', CLARION_DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    let readyMs = Number.NaN;
    let readyCpuMs = Number.NaN;
    while (Number.isNaN(readyMs)) {
      if (child.exitCode !== null) throw new Error(`${variant}: the server exited with ${child.exitCode}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (response.ok) {
          readyMs = performance.now() - started;
          readyCpuMs = processCpuSeconds(child.pid!) * 1000;
        }
      } catch {
        // Not listening yet.
      }
      if (Number.isNaN(readyMs)) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    return { readyMs, readyCpuMs, idleRssMb: processRssMb(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

buildClarion();

const samples: Record<Variant, Sample[]> = { sources: [], compiled: [], baseline: [], hello: [] };
for (let run = 0; run < runs; run += 1) {
  for (const variant of chosen) {
    const sample = await measureOnce(variant);
    samples[variant].push(sample);
    console.log(
      `${variant} run ${run + 1}: ready in ${Math.round(sample.readyMs)} ms (${Math.round(sample.readyCpuMs)} ms CPU), idle RSS ${roundTo(sample.idleRssMb)} MiB`,
    );
  }
}
const figures: Record<string, number> = {};
for (const variant of chosen) {
  const ready = samples[variant].map((sample) => sample.readyMs);
  const rss = samples[variant].map((sample) => sample.idleRssMb);
  figures[`${variant}ReadyMs`] = Math.round(median(ready));
  figures[`${variant}ReadyMsMax`] = Math.round(Math.max(...ready));
  figures[`${variant}ReadyCpuMs`] = Math.round(median(samples[variant].map((sample) => sample.readyCpuMs)));
  figures[`${variant}IdleRssMb`] = roundTo(median(rss));
}
printBenchResult(figures);
