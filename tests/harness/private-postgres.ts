import { freePort } from './free-port.ts';
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own, which it may crash and start again: the run's shared server
 * (CLARION_TEST_DATABASE_URL) is never stopped, since every other test file uses it. Built from the server binaries of
 * Debian's `postgresql` package (/usr/lib/postgresql/<version>/bin, which .ci/run installs): a temp directory, a free
 * port on 127.0.0.1, its Unix socket in that directory, trust authentication, no fsync (the machine does not crash,
 * only the server). PostgreSQL refuses to run as root, so as root the binaries run as the `postgres` user.
 */
export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** `pg_ctl stop -m immediate`: every server process ends at once, as in a crash; the next start runs crash recovery. */
  crash(): Promise<void>;
  /** Starts the server again (if it is not running) and resolves once it accepts connections. */
  start(): Promise<void>;
  /** The server's own log, to show when a test fails. */
  log(): string;
  /** Stops the server (immediately) and deletes its directory. */
  destroy(): Promise<void>;
}

/** The newest installed server's bin directory, or null when no PostgreSQL server is installed. */
export function postgresServerBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter(
    (version) => existsSync(join(root, version, 'bin', 'pg_ctl')) && existsSync(join(root, version, 'bin', 'initdb')),
  );
  versions.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}

export async function startPrivatePostgres(bin: string): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'clarion-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot)
    chownSync(
      dir,
      Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
      Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
    );
  const pgCommand = (command: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args);
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const port = await freePort();
  await pgCommand('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  // pg_ctl -w returns once the server accepts connections, or once it is gone and its postmaster.pid removed.
  const running = () => existsSync(join(data, 'postmaster.pid'));
  const start = async () =>
    void (
      running() || (await pgCommand('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '30', '-o', options, 'start']))
    );
  const stop = async () =>
    void (running() && (await pgCommand('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])));
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    crash: stop,
    start,
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
