import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processCpuSeconds } from './process-usage.ts';

// BENCH_CLARION_BIN runs another checkout's `clarion` (e.g. the commit before a change) against the same load.
const clarionBin =
  process.env.BENCH_CLARION_BIN ?? join(dirname(fileURLToPath(import.meta.url)), '../../bin/clarion.js');

/**
 * Builds this checkout's dist/ and its bundle now (scripts/build.js, as `npm run build`), for a benchmark that measures
 * the compiled `clarion serve`: a stale build would be measured otherwise.
 */
export function buildClarion(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.js')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}

export interface ClarionProcess {
  url: string;
  pid: number;
  /** User + system CPU seconds the process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * `clarion serve` in a process of its own, exactly as an operator runs it (`--api`, `--worker`, or both), on a free
 * port, with every API rate limit raised out of the way. Resolves once /healthz answers. Its log goes nowhere unless
 * `logFile` says where: pino still formats every line, as in production, but then no disk takes part in the figures.
 */
export async function startClarion(input: {
  roles: Array<'api' | 'worker'>;
  env: Record<string, string>;
  nodeArgs?: string[];
  /** Where its log (stdout) goes, as `clarion serve > FILE` would write it; by default nowhere. */
  logFile?: string;
}): Promise<ClarionProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...(input.nodeArgs ?? []), clarionBin, 'serve', ...input.roles.map((role) => `--${role}`)],
    {
      env: {
        ...process.env,
        CLARION_PORT: String(port),
        CLARION_HOST: '127.0.0.1',
        CLARION_RATE_LIMIT_PER_SECOND: '100000',
        CLARION_RATE_LIMIT_BURST: '100000',
        ...input.env,
      },
      stdio: ['ignore', input.logFile ? openSync(input.logFile, 'a') : 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const probe = input.roles.includes('api') ? url : null;
  await waitUntilUp(child, probe, () => stderr);
  return {
    url,
    pid: child.pid!,
    cpuSeconds: () => processCpuSeconds(child.pid!),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

async function waitUntilUp(child: ChildProcess, url: string | null, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`clarion serve exited with ${child.exitCode}: ${stderr()}`);
    if (url === null) {
      // A worker-only process has no port: give it a moment to migrate and start its pool.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      return;
    }
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`clarion serve did not come up within 60 s: ${stderr()}`);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}
