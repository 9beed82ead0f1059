/** Every command prints one JSON object with --json, or readable lines without; errors exit non-zero. */
export interface OutputOptions {
  json?: boolean;
}

export class CliError extends Error {
  /** The process's exit status (1 unless a command documents another). */
  readonly exitCode: number;
  /** More members of the --json error object (an API error's status and request id). */
  readonly extra: Record<string, unknown>;

  constructor(
    message: string,
    readonly code = 'cli_error',
    options: { exitCode?: number; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.exitCode = options.exitCode ?? 1;
    this.extra = options.extra ?? {};
  }
}

/** "1 subscriber", "2 subscribers", "0 subscribers": English counts, so no output reads "1 subscribers". */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

export function printResult(options: OutputOptions, result: Record<string, unknown>, human: string[]): void {
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(`${human.join('\n')}\n`);
}

export function printError(json: boolean, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof CliError ? error.code : 'error';
  const extra = error instanceof CliError ? error.extra : {};
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message, ...extra } })}\n`);
  process.stderr.write(`clarion: ${message}\n`);
}
