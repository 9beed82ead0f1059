import type { Config } from '../config/load-config.ts';
import { ConfigError } from '../config/load-config.ts';
import type { ClarionApp } from './app-types.ts';

/**
 * Where the HTTP server binds: CLARION_HOST when it was given; else, while the instance's first sign-up is open (no
 * account yet, CLARION_SIGNUP not open), loopback only, since that sign-up makes whoever reaches the dashboard first
 * the operator (src/http/signup-policy.ts); else the option's default, every interface. Decided at start: the
 * process keeps its address until restarted (docs/deploy.md, "Where it listens").
 */
export function listenHost(
  config: Pick<Config, 'host'>,
  input: { hostGiven: boolean; firstAccountOpen: boolean },
): string {
  return !input.hostGiven && input.firstAccountOpen ? LOOPBACK : config.host;
}

const LOOPBACK = '127.0.0.1';

/**
 * Listens where the configuration says. The errors an operator meets at this point are configuration errors, said
 * with the variable to change (exit 78 like every other one, src/cli/main.ts): Node's own "listen EADDRINUSE:
 * address already in use :::3000" names neither CLARION_PORT nor what to do.
 */
export async function listenOn(app: ClarionApp, config: Pick<Config, 'port' | 'host'>): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const where = `${config.host}:${config.port}`;
    switch ((error as NodeJS.ErrnoException).code) {
      case 'EADDRINUSE':
        throw new ConfigError(
          `address already in use: another process listens on ${where}; set CLARION_PORT to a free port (or stop the other process)`,
        );
      case 'EACCES':
        throw new ConfigError(
          `not allowed to listen on ${where}: ports below 1024 need privileges; set CLARION_PORT to 1024 or above (and put a proxy in front)`,
        );
      case 'EADDRNOTAVAIL':
        throw new ConfigError(`cannot listen on ${where}: CLARION_HOST is not an address of this machine`);
      default:
        throw error;
    }
  }
}
