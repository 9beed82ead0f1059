import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { configOptions, type ConfigOf, type OptionDeclaration } from './config-options.ts';
import { parseDuration, parseDurationList } from './duration.ts';

/** Derived from configOptions, so an option declared there is parsed and typed without being written twice. */
export type Config = ConfigOf<typeof configOptions>;

/** Thrown for a bad option; the message names the variable so start-up can print it and stop. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The optional JSON config file: keys are the CLARION_* variable names; the environment wins over the file. */
export const CONFIG_FILE_VARIABLE = 'CLARION_CONFIG_FILE';

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const sources = configSources(env);
  const options: readonly OptionDeclaration[] = configOptions;
  const config: Record<string, unknown> = {};
  for (const option of options) {
    const raw = sources[option.env];
    const text = isGiven(raw) ? String(raw) : option.default;
    config[option.key] = text === undefined ? undefined : parseOption(option, text);
  }
  // One key per option, each parsed by its kind: the shape Config derives from the same list.
  const parsed = config as Config;
  parsed.dataDir = resolve(parsed.dataDir);
  if (parsed.databaseUrl && !/^postgres(ql)?:\/\//.test(parsed.databaseUrl)) {
    throw new ConfigError(
      `CLARION_DATABASE_URL must start with postgres:// or postgresql:// (got "${redactUrl(parsed.databaseUrl)}")`,
    );
  }
  if (parsed.trustProxy !== undefined) checkTrustProxy(parsed.trustProxy);
  // The token guards /metrics on the public port and is checked without a rate limit: too short a one could be guessed.
  if (parsed.metricsToken !== undefined && parsed.metricsToken.length < MIN_METRICS_TOKEN_LENGTH) {
    throw new ConfigError(
      `CLARION_METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} characters (e.g. the output of \`openssl rand -hex 32\`); the one given has ${parsed.metricsToken.length}`,
    );
  }
  return parsed;
}

const MIN_METRICS_TOKEN_LENGTH = 16;

/**
 * Whether an option was given a value (environment or config file) rather than left to its default: for the one
 * choice that depends on it, where a new instance listens while CLARION_HOST is unset (src/http/listen-on.ts).
 */
export function optionGiven(variable: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return isGiven(configSources(env)[variable]);
}

/** The config file's values under the environment's: the environment wins. */
function configSources(env: NodeJS.ProcessEnv): Record<string, unknown> {
  return { ...readConfigFile(env[CONFIG_FILE_VARIABLE]), ...definedOnly(env) };
}

/** An empty value counts as unset, as in a shell's `CLARION_PORT= npm start`. */
const isGiven = (raw: unknown) => raw !== undefined && raw !== '';

/** proxy-addr's own names, or an IP address, optionally with a /prefix length (a CIDR range). */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function checkTrustProxy(value: string): void {
  for (const entry of value.split(',').map((part) => part.trim())) {
    const [address = '', prefix] = entry.split('/');
    const ok =
      TRUST_PROXY_NAMES.has(entry) || (isIP(address) !== 0 && (prefix === undefined || /^\d{1,3}$/.test(prefix)));
    if (!ok) {
      throw new ConfigError(
        `CLARION_TRUST_PROXY: "${entry}" is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal`,
      );
    }
  }
}

function parseOption(option: OptionDeclaration, text: string): unknown {
  const fail = (why: string): never => {
    throw new ConfigError(`${option.env}: ${why} (got "${option.env.includes('SECRET') ? '…' : text}")`);
  };
  switch (option.kind) {
    case 'port': {
      const port = Number(text);
      if (!Number.isInteger(port) || port < 0 || port > 65535) fail('must be a TCP port from 0 to 65535');
      return port;
    }
    case 'integer': {
      const value = Number(text);
      if (!/^-?\d+$/.test(text.trim())) fail('must be a whole number');
      if (option.min !== undefined && value < option.min) fail(`must be at least ${option.min}`);
      if (option.max !== undefined && value > option.max) fail(`must be at most ${option.max}`);
      return value;
    }
    case 'boolean':
      if (text === 'true' || text === '1') return true;
      if (text === 'false' || text === '0') return false;
      return fail('must be true or false');
    case 'enum':
      if (!option.values?.includes(text)) fail(`must be one of ${option.values?.join(', ')}`);
      return text;
    case 'url':
      try {
        new URL(text);
      } catch {
        fail('must be an absolute URL');
      }
      return text.replace(/\/+$/, '');
    case 'duration':
      try {
        return parseDuration(text);
      } catch (error) {
        return fail((error as Error).message);
      }
    case 'duration-list':
      try {
        return parseDurationList(text);
      } catch (error) {
        return fail((error as Error).message);
      }
    case 'path':
    case 'string':
      return text;
  }
}

function readConfigFile(path: string | undefined): Record<string, unknown> {
  if (!path) return {};
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${CONFIG_FILE_VARIABLE}: cannot read ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${CONFIG_FILE_VARIABLE}: ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`${CONFIG_FILE_VARIABLE}: ${path} must hold one JSON object of CLARION_* keys`);
  }
  const known = new Set<string>(configOptions.map((option) => option.env));
  for (const key of Object.keys(parsed)) {
    if (!known.has(key)) throw new ConfigError(`${CONFIG_FILE_VARIABLE}: unknown option ${key} in ${path}`);
  }
  return parsed as Record<string, unknown>;
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}
