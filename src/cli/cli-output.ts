/** Every command prints one JSON object with --json, or readable lines without; errors exit non-zero. */
export interface OutputOptions {
  json?: boolean;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 'cli_error',
  ) {
    super(message);
  }
}

export function printResult(options: OutputOptions, result: Record<string, unknown>, human: string[]): void {
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(`${human.join('\n')}\n`);
}

export function printError(json: boolean, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof CliError ? error.code : 'error';
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  process.stderr.write(`clarion: ${message}\n`);
}
