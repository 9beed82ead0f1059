import type { Command } from 'commander';
import { ConfigError } from '../config/load-config.ts';
import { loadClientPackage, type ApiErrorLike, type CliClient, type ConnectionErrorLike } from './client-package.ts';
import { CliError, countOf } from './cli-output.ts';

/**
 * The commands that talk to a running Clarion over HTTP with an API key (`clarion send`, `clarion live …`), built on
 * the client package (packages/client): the same retries, Idempotency-Key and typed errors a caller's code gets.
 * Unlike the other commands they need no database access, so they work from any machine that reaches the server.
 */
export const API_KEY_VARIABLE = 'CLARION_API_KEY';
export const URL_VARIABLE = 'CLARION_URL';
/** Where `clarion serve` listens by default (CLARION_PORT 3000). */
const DEFAULT_URL = 'http://localhost:3000';
/** EX_UNAVAILABLE (sysexits.h): the server could not be reached at all. */
const EXIT_UNREACHABLE = 69;

export interface ApiOptions {
  server?: string;
  apiKey?: string;
  json?: boolean;
}

/** The options every HTTP command takes; flags win over the environment. */
export function withApiOptions(command: Command): Command {
  return command
    .option('--server <url>', `Clarion's address (default: $${URL_VARIABLE}, else ${DEFAULT_URL})`)
    .option(
      '--api-key <key>',
      `a secret key, clr_sk_… (default: $${API_KEY_VARIABLE}; prefer the variable: flags show in the process list)`,
    )
    .option('--json', 'print one JSON object');
}

interface ApiConnection {
  client: CliClient;
  baseUrl: string;
  isApiError(error: unknown): error is ApiErrorLike;
  isConnectionError(error: unknown): error is ConnectionErrorLike;
}

export async function connect(options: ApiOptions, env: NodeJS.ProcessEnv = process.env): Promise<ApiConnection> {
  const apiKey = options.apiKey ?? env[API_KEY_VARIABLE];
  if (!apiKey)
    throw new ConfigError(`${API_KEY_VARIABLE} is not set: set it to a secret key (clr_sk_…) or pass --api-key`);
  const baseUrl = options.server ?? env[URL_VARIABLE] ?? DEFAULT_URL;
  const source =
    options.server !== undefined ? '--server' : env[URL_VARIABLE] !== undefined ? URL_VARIABLE : 'the default URL';
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`${source} must be an http(s) URL like ${DEFAULT_URL}, not "${baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${source} must be an http(s) URL like ${DEFAULT_URL}, not "${baseUrl}"`);
  const { createClarionClient, ClarionApiError, ClarionConnectionError } = await loadClientPackage();
  return {
    client: createClarionClient({ baseUrl, apiKey }),
    baseUrl,
    isApiError: (error): error is ApiErrorLike => error instanceof ClarionApiError,
    isConnectionError: (error): error is ConnectionErrorLike => error instanceof ClarionConnectionError,
  };
}

/**
 * Runs one API call and turns its failures into CLI errors: a refusal keeps the API's code, status and request id
 * (exit 1, "clarion: <code>: <message>" on stderr); a server that cannot be reached exits 69.
 */
export async function callApi<T>(connection: ApiConnection, call: (client: CliClient) => Promise<T>): Promise<T> {
  try {
    return await call(connection.client);
  } catch (error) {
    if (connection.isApiError(error)) {
      const request = error.requestId ? ` (request ${error.requestId})` : '';
      throw new CliError(`${error.code}: ${error.message}${request}${fieldProblems(error.details)}`, error.code, {
        // --json gets the API's own message, status, request id and details as members of their own.
        extra: {
          message: error.message,
          status: error.status,
          requestId: error.requestId,
          ...(error.details ? { details: error.details } : {}),
        },
      });
    }
    if (connection.isConnectionError(error)) {
      // The client retried already (packages/client/README.md, "Retries and idempotency"); say what the last attempt met.
      const attempts = countOf(error.attempts, 'attempt');
      const what = error.timedOut
        ? `no answer from ${connection.baseUrl} in time`
        : `cannot reach ${connection.baseUrl}${systemCause(error.cause)}`;
      throw new CliError(`${what} (${attempts})`, 'unreachable', { exitCode: EXIT_UNREACHABLE });
    }
    throw error;
  }
}

/** fetch fails with TypeError('fetch failed') whose own cause is the system's error (ECONNREFUSED, ENOTFOUND, …). */
function systemCause(failure: unknown): string {
  const cause = failure instanceof Error ? failure.cause : undefined;
  return cause instanceof Error ? `: ${cause.message}` : '';
}

/** A validation_failed answer's fields, one per line, so the command line shows what to fix. */
function fieldProblems(details: Record<string, unknown> | undefined): string {
  const fields = details?.fields;
  if (!Array.isArray(fields)) return '';
  return fields
    .map(
      (problem: { field?: unknown; message?: unknown }) => `\n  ${String(problem.field)}: ${String(problem.message)}`,
    )
    .join('');
}

/** `--fields '{"title": "Order #42", "progress": 0.1}'`: a JSON object, refused before any request otherwise. */
export function parseJsonObject(flag: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(
      `${flag} must be a JSON object, like '{"title": "Order #42", "progress": 0.1}'`,
      'validation_failed',
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CliError(`${flag} must be a JSON object`, 'validation_failed');
  return value as Record<string, unknown>;
}
