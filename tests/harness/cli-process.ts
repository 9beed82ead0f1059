import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLARION_BIN = fileURLToPath(new URL('../../bin/clarion.js', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

/** Runs `clarion …` as a separate process, the way an operator would. */
export function runCli(args: string[], env: Record<string, string | undefined>): CliResult {
  const result = spawnSync(process.execPath, [CLARION_BIN, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, json: lastJsonLine(result.stdout) };
}

/**
 * runCli without blocking this process: for tests whose fakes or servers run in the test process and must keep
 * answering while the command runs.
 */
export function runCliAsync(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLARION_BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr, json: lastJsonLine(stdout) }));
  });
}

function lastJsonLine(stdout: string): any {
  try {
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
  } catch {
    return null;
  }
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `clarion serve` on a free port and resolves once its output matches `ready` (by default: where it
 * listens; the first capture group, if any, becomes `baseUrl`).
 */
export async function startServeProcess(
  env: Record<string, string | undefined>,
  args: string[] = [],
  ready: RegExp = /listening on (http:\/\/[^\s"]+)/,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLARION_BIN, 'serve', ...args], {
    env: { ...process.env, CLARION_PORT: '0', CLARION_HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] ?? '');
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`serve exited early:\n${output}`));
    });
  });
  return {
    child,
    baseUrl,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
