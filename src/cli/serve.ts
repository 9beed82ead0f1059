import type { Command } from 'commander';
import { loadConfig, optionGiven } from '../config/load-config.ts';

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

export function addServe(program: Command): void {
  program
    .command('serve')
    .description('run the service: HTTP API and dashboard (--api) and background workers (--worker); both by default')
    .option('--api', 'serve the HTTP API and dashboard')
    .option('--worker', 'run the background workers')
    .action(async (options: { api?: boolean; worker?: boolean }) => {
      const both = !options.api && !options.worker;
      const config = loadConfig();
      // Loaded here, not at the top: the other commands need none of the HTTP stack and start faster without it.
      const { startServer } = await import('../server.ts');
      const server = await startServer(
        config,
        { api: both || Boolean(options.api), worker: both || Boolean(options.worker) },
        { hostGiven: optionGiven('CLARION_HOST') },
      );
      if (server.address) {
        server.logger.info(
          { host: server.host },
          `Clarion is listening on ${server.address} — dashboard at ${config.baseUrl}/, API docs at ${config.baseUrl}/docs`,
        );
      }
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        server.logger.info({ signal }, 'shutting down: finishing in-flight requests');
        const force = setTimeout(() => {
          server.logger.error('shutdown took too long; exiting');
          process.exit(1);
        }, SHUTDOWN_GRACE_MS);
        force.unref();
        server.close().then(
          () => process.exit(0),
          (error: unknown) => {
            server.logger.error({ err: error }, 'error during shutdown');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
    });
}
