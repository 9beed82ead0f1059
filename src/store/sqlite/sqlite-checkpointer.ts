import { Worker } from 'node:worker_threads';
import { sqliteDriverPath } from './sqlite-driver.ts';

/**
 * How often the thread copies what the WAL has gained into the database file: at 1,000 accepted notifications a
 * second the WAL grows by ~1,000 pages a second, so each turn copies ~200 of them.
 */
export const CHECKPOINT_INTERVAL_MS = 200;

/**
 * The serving connection's own automatic checkpoint, which is what starts the WAL over: a PASSIVE checkpoint from
 * another thread seldom finds the WAL complete under steady writes (a commit lands during its fsyncs), so left to the
 * thread alone the WAL grew without end (45 MB after one 10 s run at 1,000 req/s). When the serving connection gets
 * there, the thread has copied all but the last few frames: its checkpoint copies those, completes (nothing else
 * writes between its commits), and the next commit starts the WAL over.
 */
export const SERVING_AUTOCHECKPOINT_PAGES = 4_000;

/**
 * The thread runs one pragma in a loop and allocates next to nothing: small heaps keep its share of the process's
 * idle RSS down.
 */
const THREAD_HEAP = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 };

/** A checkpoint that keeps failing is reported once, then at most once in this long, not every turn. */
export const CHECKPOINT_ERROR_REPORT_INTERVAL_MS = 60_000;

export interface SqliteCheckpointer {
  /** Turns whose checkpoint failed since the thread started (each is reported or counted under the last report). */
  readonly failedTurns: number;
  /** Stops after the checkpoint under way, if any, and closes the thread's connection. */
  stop(): Promise<void>;
}

// The thread's code, evaluated as CommonJS: no file of its own to find from the sources or from dist/.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.file);
const timer = setInterval(() => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  database.close();
  parentPort.close();
});
`;

/**
 * SQLite WAL checkpoints on a thread of their own, so that the copying and the fsyncs run off the serving event loop.
 *
 * better-sqlite3 is synchronous: with SQLite's default automatic checkpoint the COMMIT that takes the WAL past 1,000
 * pages copies them into the database file and fsyncs both files while the whole event loop waits. Measured on the
 * accept path with strace (docs/performance.md, "Accept latency on SQLite"): at 1,000 req/s that was one
 * checkpoint a second on the main thread, 10–20 ms with its fsyncs (up to 90 ms on the busy machine), every request
 * arriving meanwhile waiting too — the size of the p99 target itself. A PASSIVE checkpoint from another connection
 * takes no write lock: commits go on appending to the WAL while it copies. The serving connection keeps an automatic
 * checkpoint of its own (SERVING_AUTOCHECKPOINT_PAGES), which then has only the last few frames left to copy.
 * Durability is unchanged: a commit is in the WAL either way, and a WAL left behind by a kill is recovered when the
 * database is next opened.
 */
export function startSqliteCheckpointer(
  file: string,
  intervalMs: number,
  onError: (message: string) => void = () => {},
): SqliteCheckpointer {
  const driver = sqliteDriverPath();
  const thread = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { file, driver, intervalMs },
    resourceLimits: THREAD_HEAP,
  });
  // A checkpoint that fails (the disk full, say) is retried at the next interval, and the serving connection's own
  // automatic checkpoint still bounds the WAL: the process goes on, but the operator hears of it — once, then at most
  // once a minute, as the thread would otherwise report the same failure five times a second. A thread that dies (its
  // connection could not be opened) is reported too; the serving connection's checkpoints carry on alone.
  let lastReportAt = -Infinity;
  let failedTurns = 0;
  const report = (message: string) => {
    const now = Date.now();
    if (now - lastReportAt < CHECKPOINT_ERROR_REPORT_INTERVAL_MS) return;
    lastReportAt = now;
    onError(message);
  };
  thread.on('message', (message: { error?: string }) => {
    if (!message.error) return;
    failedTurns += 1;
    report(message.error);
  });
  thread.on('error', (error) => report(String(error)));
  thread.unref();
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  return {
    get failedTurns() {
      return failedTurns;
    },
    async stop() {
      // Held by the thread until it has closed its connection: unreferenced, the process could exit while awaiting it.
      thread.ref();
      thread.postMessage('stop');
      await exited;
    },
  };
}
