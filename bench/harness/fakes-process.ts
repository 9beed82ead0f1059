import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { repoRoot } from './repo-root.ts';
import { stopChild } from './worker-process.ts';

const childScript = join(dirname(fileURLToPath(import.meta.url)), 'fakes-child.ts');

export interface FakesProcess {
  /** CLARION_APNS_* / CLARION_FCM_* and NODE_EXTRA_CA_CERTS for `clarion serve`. */
  env: Record<string, string>;
  /** Epoch ms at which some device first received each notification (by id). */
  firstPushAt: Map<string, number>;
  /** Pushes received so far (reported once a second). */
  pushCount(): number;
  /** Resolves once at least `count` pushes were received. */
  waitForPushes(count: number, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** Starts fake APNs and FCM in their own process (bench/harness/fakes-child.ts); credentials go into `dir`. */
export async function startFakes(dir: string): Promise<FakesProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const firstPushAt = new Map<string, number>();
  let pushes = 0;
  let countListeners: Array<() => void> = [];
  let resolveEnv: (env: Record<string, string>) => void = () => {};
  const ready = new Promise<Record<string, string>>((resolve) => (resolveEnv = resolve));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const [word, first, second] = line.split(' ');
    if (word === 'PUSH') firstPushAt.set(first!, Number(second));
    else if (word === 'COUNT') {
      pushes = Number(first);
      for (const listener of countListeners) listener();
    } else if (word === 'FAKES') resolveEnv(JSON.parse(line.slice('FAKES '.length)) as Record<string, string>);
  });
  const exited = once(child, 'exit').then(() => {
    throw new Error('the fakes process exited before it was ready');
  });
  const env = await Promise.race([ready, exited]);
  return {
    env,
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
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export interface RunFakesProcess {
  /** CLARION_APNS_*, CLARION_FCM_*, CLARION_FAKE_WEB_PUSH_URL, NODE_EXTRA_CA_CERTS for a worker (or the bare client). */
  env: Record<string, string>;
  pid: number;
  stop(): Promise<void>;
}

/**
 * tools/run-fakes.ts (APNs, FCM and Web Push) on free ports, keeping no request records, with `latency` ("20-50", ms)
 * per answer: the fan-out benchmarks' fakes, whose CPU can be read apart from Clarion's.
 */
export async function startRunFakes(latency: string): Promise<RunFakesProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'clarion-bench-fakes-'));
  const args = ['--apns-port', '0', '--fcm-port', '0', '--web-push-port', '0', '--dir', dir, '--quiet', '--forget', '--latency', latency, '--apns-topic', 'com.example.bench'];
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'tools/run-fakes.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'], cwd: repoRoot });
  const env = await new Promise<Record<string, string>>((resolvePromise, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // run-fakes prints all its export lines in one write, NODE_EXTRA_CA_CERTS last.
      if (!output.includes('NODE_EXTRA_CA_CERTS')) return;
      const parsed: Record<string, string> = {};
      for (const match of output.matchAll(/^export (\w+)=(.*)$/gm)) parsed[match[1]!] = match[2]!.replace(/^'(.*)'$/, '$1');
      resolvePromise(parsed);
    });
    child.once('exit', (code) => reject(new Error(`the fakes exited (${code}) before starting`)));
  });
  return { env, pid: child.pid!, stop: () => stopChild(child).then(() => rmSync(dir, { recursive: true, force: true })) };
}
