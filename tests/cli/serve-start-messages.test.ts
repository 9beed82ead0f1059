import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLARION_BIN, runCli, startServeProcess, type ServerProcess } from '../harness/cli-process.ts';

/**
 * What `clarion serve` says at start about the choices that matter for safety: who can create
 * accounts, and which variable to change when the port is taken. On SQLite in a data directory of its own: the
 * messages do not depend on the dialect, and a fresh directory is an instance without accounts.
 */
const dataDirs: string[] = [];
const freshDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'clarion-start-'));
  dataDirs.push(dir);
  return dir;
};
let occupied: Server;
beforeAll(async () => {
  occupied = createServer().listen(0, '127.0.0.1');
  await once(occupied, 'listening');
});
afterAll(async () => {
  occupied.close();
  await once(occupied, 'close');
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** An address of this machine other than loopback, if it has one: where another machine would connect. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;

/** Whether the server answers on `address` at its port: a connection refused means it does not listen there. */
async function answersOn(server: ServerProcess, address: string): Promise<boolean> {
  const url = new URL(server.baseUrl);
  url.hostname = address;
  try {
    return (await fetch(`${url.origin}/healthz`)).ok;
  } catch {
    return false;
  }
}

/** The host the listening line reports it bound. */
const boundHost = (server: ServerProcess) => /"host":"([^"]+)"[^\n]*Clarion is listening on/.exec(server.output())?.[1];

describe('where clarion serve listens', () => {
  it('a new instance without CLARION_HOST listens on loopback only, and says why and how to open it', async () => {
    const server = await startServeProcess(
      {
        CLARION_DATA_DIR: freshDataDir(),
        CLARION_DATABASE_URL: undefined,
        CLARION_SIGNUP: undefined,
        CLARION_HOST: undefined,
      },
      ['--api'],
    );
    try {
      expect(boundHost(server)).toBe('127.0.0.1');
      const lines = server
        .output()
        .split('\n')
        .filter((line) => line.includes('no account yet'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /"level":40.*listening on 127\.0\.0\.1 only: this instance has no account yet.*CLARION_HOST=0\.0\.0\.0/,
      );
      expect(lines[0]).toContain('clarion accounts create');
      expect(await answersOn(server, '127.0.0.1')).toBe(true);
      if (outsideAddress) expect(await answersOn(server, outsideAddress)).toBe(false);
    } finally {
      await server.stop();
    }
  });

  it('honours CLARION_HOST when it is set, even on a new instance', async () => {
    const server = await startServeProcess(
      {
        CLARION_DATA_DIR: freshDataDir(),
        CLARION_DATABASE_URL: undefined,
        CLARION_SIGNUP: undefined,
        CLARION_HOST: '0.0.0.0',
      },
      ['--api'],
    );
    try {
      expect(boundHost(server)).toBe('0.0.0.0');
      expect(server.output()).not.toContain('listening on 127.0.0.1 only');
      if (outsideAddress) expect(await answersOn(server, outsideAddress)).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('an instance with an account listens on the default, every interface', async () => {
    const dataDir = freshDataDir();
    const created = runCli(['accounts', 'create', '--name', 'Operator', '--json'], {
      CLARION_DATA_DIR: dataDir,
      CLARION_DATABASE_URL: undefined,
    });
    expect(created.status, created.stderr).toBe(0);
    const server = await startServeProcess(
      {
        CLARION_DATA_DIR: dataDir,
        CLARION_DATABASE_URL: undefined,
        CLARION_SIGNUP: undefined,
        CLARION_HOST: undefined,
      },
      ['--api'],
    );
    try {
      expect(boundHost(server)).toBe('0.0.0.0');
      expect(server.output()).not.toContain('no account yet');
      if (outsideAddress) expect(await answersOn(server, outsideAddress)).toBe(true);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('clarion serve at start', () => {
  it('offers the first account on an instance without accounts (no CLARION_SIGNUP)', async () => {
    const server = await startServeProcess(
      { CLARION_DATA_DIR: freshDataDir(), CLARION_DATABASE_URL: undefined, CLARION_SIGNUP: undefined },
      ['--api'],
    );
    try {
      expect(server.output()).toMatch(
        /"signup":"first-account".*no account yet: the first sign-up at http:\/\/localhost:3000\/#\/signup/,
      );
      const session = (await (await fetch(`${server.baseUrl}/api/v1/auth/session`)).json()) as { data: unknown };
      expect(session.data).toEqual({ signup: 'first-account', session: null });
    } finally {
      await server.stop();
    }
  });

  it('warns what CLARION_SIGNUP=open means', async () => {
    const server = await startServeProcess(
      { CLARION_DATA_DIR: freshDataDir(), CLARION_DATABASE_URL: undefined, CLARION_SIGNUP: 'open' },
      ['--api'],
    );
    try {
      expect(server.output()).toMatch(
        /"level":40.*"signup":"open".*CLARION_SIGNUP=open: anyone who can reach this instance can create a Free account/,
      );
    } finally {
      await server.stop();
    }
  });

  it.each([
    ['a space and angle brackets', 'mailto: <admin@example.com>'],
    ['a localhost host', 'mailto:webpush@localhost'],
  ])('stops with one line naming CLARION_VAPID_SUBJECT when it has %s, and exits 78', (_what, subject) => {
    const result = spawnSync(process.execPath, [CLARION_BIN, 'serve', '--api'], {
      env: {
        ...process.env,
        CLARION_DATA_DIR: freshDataDir(),
        CLARION_DATABASE_URL: undefined,
        CLARION_HOST: '127.0.0.1',
        CLARION_PORT: '0',
        CLARION_VAPID_SUBJECT: subject,
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(78);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^clarion: CLARION_VAPID_SUBJECT: .*\\(got "${subject.replace(/[<>]/g, '.')}"\\)$`),
    );
  });

  it('starts with a subject derived from a localhost base URL, warning that Safari will refuse it', async () => {
    const server = await startServeProcess(
      {
        CLARION_DATA_DIR: freshDataDir(),
        CLARION_DATABASE_URL: undefined,
        CLARION_VAPID_SUBJECT: undefined,
        CLARION_BASE_URL: 'http://localhost:3000',
      },
      ['--api'],
    );
    try {
      expect(server.output()).toMatch(
        /"level":40.*"subject":"mailto:webpush@localhost".*refuses a localhost VAPID subject/,
      );
    } finally {
      await server.stop();
    }
  });

  it('names CLARION_PORT when the port is taken, and exits 78', () => {
    const { port } = occupied.address() as { port: number };
    const result = spawnSync(process.execPath, [CLARION_BIN, 'serve', '--api'], {
      env: {
        ...process.env,
        CLARION_DATA_DIR: freshDataDir(),
        CLARION_DATABASE_URL: undefined,
        CLARION_HOST: '127.0.0.1',
        CLARION_PORT: String(port),
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain(
      `clarion: address already in use: another process listens on 127.0.0.1:${port}; set CLARION_PORT to a free port`,
    );
  });
});
