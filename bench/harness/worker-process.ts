import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './repo-root.ts';

const CLARION_BIN = join(repoRoot, 'bin/clarion.js');

export interface WorkerProcess {
  pid: number;
  stop(): Promise<void>;
}

/** `clarion serve --worker`, resolved once it logged that its worker started. */
export async function startWorkerProcess(
  env: Record<string, string>,
  extraNodeArgs: string[] = [],
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...extraNodeArgs, CLARION_BIN, 'serve', '--worker'], {
    env: { ...process.env, CLARION_LOG_LEVEL: 'info', CLARION_QUEUE_POLL_INTERVAL: '100ms', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: repoRoot,
  });
  let output = '';
  await new Promise<void>((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('delivery worker started')) resolvePromise();
      // Keep only the tail: a worker's log is not read after start, and errors show up at its end.
      if (output.length > 100_000) output = output.slice(-20_000);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`the worker exited (${code}) before starting:\n${output.slice(-4000)}`)),
    );
  });
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    if (/"level":(40|50|60)/.test(text)) process.stderr.write(text);
  });
  return { pid: child.pid!, stop: () => stopChild(child) };
}

/** SIGTERM, resolved once the process exited (at once if it already had). */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    child.once('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });
}
