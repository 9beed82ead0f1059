// What an idle `clarion serve` (both roles, SQLite, the compiled build as `clarion` runs it: its bundle in dist/bundle/)
// has loaded once /readyz answers: every script V8 has parsed, counted by package (node_modules), by folder of dist/,
// Node's own modules, and code compiled at run time (validators, serializers: scripts without a URL). Counts, not
// time: the same on a busy machine.
//
//   node --import tsx bench/startup-modules.ts [--top 25] [--quick]
//
// The process runs with bench/harness/loaded-scripts.mjs preloaded, which writes the list on SIGUSR2.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { printBenchResult } from './harness/bench-result.ts';
import { buildClarion, freePort } from './harness/clarion-process.ts';
import { repoRoot } from './harness/repo-root.ts';

const { values } = parseArgs({
  options: { top: { type: 'string', default: '25' }, quick: { type: 'boolean', default: false } },
});

interface ParsedScript {
  url: string;
  length: number;
}

/** The group a script counts under: its package, its folder of dist/, Node's own, or compiled at run time. */
function groupOf(url: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inPackage) return inPackage[1]!;
  if (url.startsWith('node:')) return 'node: (built-in modules)';
  if (url === '') return '(compiled at run time)';
  const inDist = /\/dist\/(.+)$/.exec(url);
  if (inDist) return `dist/${inDist[1]!.includes('/') ? inDist[1]!.split('/')[0] + '/' : inDist[1]!}`;
  return url;
}

async function loadedScripts(): Promise<ParsedScript[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clarion-bench-modules-'));
  const outputFile = join(dataDir, 'loaded-scripts.json');
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', join(repoRoot, 'bench/harness/loaded-scripts.mjs'), join(repoRoot, 'bin/clarion.js'), 'serve'],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        CLARION_PORT: String(port),
        CLARION_HOST: '127.0.0.1',
        CLARION_DATA_DIR: dataDir,
        BENCH_LOADED_SCRIPTS_FILE: outputFile,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`clarion serve exited with ${child.exitCode}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill('SIGUSR2');
    while (!existsSync(outputFile)) await new Promise((resolve) => setTimeout(resolve, 10));
    // Written in one call; a read that races the write finds it incomplete and tries again.
    for (;;) {
      try {
        return JSON.parse(readFileSync(outputFile, 'utf8')) as ParsedScript[];
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

buildClarion();

const scripts = await loadedScripts();
const groups = new Map<string, { scripts: number; kib: number }>();
for (const script of scripts) {
  const group = groups.get(groupOf(script.url)) ?? { scripts: 0, kib: 0 };
  group.scripts += 1;
  group.kib += script.length / 1024;
  groups.set(groupOf(script.url), group);
}
const sorted = [...groups].sort((a, b) => b[1].scripts - a[1].scripts);
const top = values.quick ? 10 : Number(values.top);
for (const [name, group] of sorted.slice(0, top)) {
  console.log(`${String(group.scripts).padStart(5)} scripts ${String(Math.round(group.kib)).padStart(6)} KiB  ${name}`);
}
const rest = sorted.slice(top);
if (rest.length > 0) {
  const restScripts = rest.reduce((sum, [, group]) => sum + group.scripts, 0);
  console.log(`${String(restScripts).padStart(5)} scripts in ${rest.length} more groups`);
}
const count = (test: (url: string) => boolean) => scripts.filter((script) => test(script.url)).length;
const totalKib = scripts.reduce((sum, script) => sum + script.length, 0) / 1024;
console.log(`${scripts.length} scripts, ${Math.round(totalKib)} KiB of source`);
printBenchResult({
  scripts: scripts.length,
  sourceKib: Math.round(totalKib),
  packageScripts: count((url) => url.includes('/node_modules/')),
  packages: sorted.filter(([name]) => !name.startsWith('dist/') && !name.startsWith('node:') && !name.startsWith('('))
    .length,
  clarionScripts: count((url) => url.startsWith(`file://${repoRoot}/dist/`)),
  nodeScripts: count((url) => url.startsWith('node:')),
  runTimeCompiledScripts: count((url) => url === ''),
});
