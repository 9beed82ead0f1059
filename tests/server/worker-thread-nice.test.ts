import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/load-config.ts';
import { startServer } from '../../src/server.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

/** Each thread of this process by id, with its nice value (field 19 of /proc/<pid>/task/<tid>/stat, proc(5)). */
function threadNiceValues(): Map<number, number> {
  const nice = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return nice;
}

let testStore: TestStore;
beforeAll(async () => {
  // A database of its own: the server here runs a worker, which must not claim other files' jobs.
  testStore = await openTestStore({ isolated: true });
});
afterAll(async () => testStore.close());

function configFor(overrides: Partial<Config>): Config {
  return {
    ...loadConfig({ CLARION_DATA_DIR: testStore.dataDir, ...(testStore.databaseUrl ? { CLARION_DATABASE_URL: testStore.databaseUrl } : {}) }),
    host: '127.0.0.1',
    port: 0,
    metricsPort: 0,
    logLevel: 'silent',
    ...overrides,
  };
}

describe.runIf(process.platform === 'linux')('the worker thread\'s priority (CLARION_WORKER_THREAD_NICE)', () => {
  it('setThreadNice changes the calling thread alone', async () => {
    // A thread of its own, as the delivery worker's is: it registers tsx (a thread does not inherit the loader, as in
    // bin/worker-thread.js), sets its nice value and says its thread id.
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
      (async () => {
        (await import('tsx/esm/api')).register();
        const { setThreadNice } = await import(workerData);
        parentPort.postMessage({ result: setThreadNice(9), tid: Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()) });
      })();`,
      { eval: true, workerData: new URL('../../src/thread-priority.ts', import.meta.url).href },
    );
    try {
      const { result, tid } = await new Promise<{ result: string; tid: number }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect(result).toBe('set');
      const nice = threadNiceValues();
      expect(nice.get(tid)).toBe(9);
      expect(nice.get(process.pid)).toBe(0);
    } finally {
      await worker.terminate();
    }
  });

  it('clarion serve with CLARION_WORKER_THREAD runs the worker thread at the configured nice value, the API thread at 0', async () => {
    const before = new Set(threadNiceValues().keys());
    const server = await startServer(configFor({ workerThread: true, workerThreadNice: 7 }), { api: true, worker: true });
    try {
      const started = [...threadNiceValues()].filter(([tid]) => !before.has(tid));
      expect(started.filter(([, nice]) => nice === 7).length).toBe(1);
      expect(threadNiceValues().get(process.pid)).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('with CLARION_WORKER_THREAD_NICE=0 leaves every thread at 0', async () => {
    const server = await startServer(configFor({ workerThread: true, workerThreadNice: 0 }), { api: true, worker: true });
    try {
      expect([...threadNiceValues().values()].every((nice) => nice === 0)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
