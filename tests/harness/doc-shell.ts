import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The first ```sh block of docs/`page` that contains `marker`, as written; undefined when there is none. */
export function docShellBlock(page: string, marker: string): string | undefined {
  const doc = readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8');
  return [...doc.matchAll(/^```sh\n([\s\S]*?)^```/gm)]
    .map((match) => match[1]!)
    .find((block) => block.includes(marker));
}

/** Runs `text` with sh, as a reader pasting it would, with `args` as $1… and `env` added to this process's. */
export function runShell(
  text: string,
  options: { args?: string[]; env: Record<string, string> },
): Promise<ShellResult> {
  return runCapturing('sh', ['-c', text, 'doc.sh', ...(options.args ?? [])], options.env);
}

export interface ShellResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` with `args`, `env` added to this process's; resolves with its exit status and its whole output. */
export function runCapturing(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<ShellResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
