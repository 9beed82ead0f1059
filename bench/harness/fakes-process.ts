import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from './repo-root.ts';
import { stopChild } from './worker-process.ts';

export interface FakesProcess {
  /** CLARION_APNS_*, CLARION_FCM_*, CLARION_ALLOW_PRIVATE_ADDRESSES, NODE_EXTRA_CA_CERTS for `clarion serve` (or the bare client). */
  env: Record<string, string>;
  /** The fake Web Push service, where browser subscriptions are made (`POST <url>/subscriptions`). */
  webPushUrl: string;
  pid: number;
  /** With `reportPushes`: epoch ms at which some device first received each notification (by id). */
  firstPushAt: Map<string, number>;
  /** With `reportPushes`: pushes received so far (reported once a second). */
  pushCount(): number;
  /** With `reportPushes`: resolves true once at least `count` pushes were received, false after `timeoutMs`. */
  waitForPushes(count: number, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * tools/run-fakes.ts (fake APNs, FCM and Web Push) in a process of its own, so its work never counts as Clarion's: on
 * free ports, keeping no request records, every answer `latency` ("20-50", ms) later, credentials in a temporary
 * directory. `reportPushes` makes it report the pushes it receives (what the accept benchmarks time). `nice` (1–19)
 * starts it below Clarion's priority (nice(1)): the fakes stand for providers whose CPU is not this machine's, and on 2
 * cores their share otherwise comes out of the server's.
 */
export async function startFakes(
  options: { latency?: string; reportPushes?: boolean; nice?: number } = {},
): Promise<FakesProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'clarion-bench-fakes-'));
  const args = [
    '--apns-port',
    '0',
    '--apns-sandbox-port',
    '0',
    '--apns-management-port',
    '0',
    '--fcm-port',
    '0',
    '--web-push-port',
    '0',
    '--dir',
    dir,
    '--quiet',
    '--forget',
    '--latency',
    options.latency ?? '0',
    '--apns-topic',
    'com.example.bench',
  ];
  if (options.reportPushes) args.push('--report-pushes');
  const command = [process.execPath, '--import', 'tsx', join(repoRoot, 'tools/run-fakes.ts'), ...args];
  // nice(1) execs the command: the child's pid is the fakes' own, and every thread it starts inherits the nice value.
  if (options.nice) command.unshift('nice', '-n', String(options.nice));
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'], cwd: repoRoot });
  const firstPushAt = new Map<string, number>();
  let pushes = 0;
  let countListeners: Array<() => void> = [];
  const exports: Record<string, string> = {};
  let webPushUrl = '';
  let resolveEnv: (env: Record<string, string>) => void = () => {};
  const ready = new Promise<Record<string, string>>((resolve) => (resolveEnv = resolve));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const webPush = /^# fake Web Push service: (\S+) /.exec(line);
    if (webPush) {
      webPushUrl = webPush[1]!;
      return;
    }
    const exported = /^export (\w+)=(.*)$/.exec(line);
    if (exported) {
      exports[exported[1]!] = exported[2]!.replace(/^'(.*)'$/, '$1');
      // run-fakes prints NODE_EXTRA_CA_CERTS last.
      if (exported[1] === 'NODE_EXTRA_CA_CERTS') resolveEnv(exports);
      return;
    }
    const [word, first, second] = line.split(' ');
    if (word === 'PUSH') firstPushAt.set(first!, Number(second));
    else if (word === 'COUNT') {
      pushes = Number(first);
      for (const listener of countListeners) listener();
    }
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the fakes exited (${code}) before starting`))),
  );
  const env = await Promise.race([ready, exited]);
  return {
    env,
    webPushUrl,
    pid: child.pid!,
    firstPushAt,
    pushCount: () => pushes,
    waitForPushes(count, timeoutMs) {
      return new Promise<boolean>((resolve) => {
        const check = () => {
          if (pushes < count) return;
          finish(true);
        };
        const finish = (reached: boolean) => {
          clearTimeout(timer);
          countListeners = countListeners.filter((listener) => listener !== check);
          resolve(reached);
        };
        const timer = setTimeout(() => finish(false), timeoutMs);
        countListeners.push(check);
        check();
      });
    },
    stop: () => stopChild(child).then(() => rmSync(dir, { recursive: true, force: true })),
  };
}
