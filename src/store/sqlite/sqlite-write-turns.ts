import { threadId } from 'node:worker_threads';

/** A waiter that has waited this long takes the turn anyway: the holder is stuck or gone (SQLite's own lock still guards the data). */
const STALE_TURN_MS = 5_000;

/**
 * Turns at SQLite's write lock for the threads of one process (the API thread and the worker thread, each with its own
 * connection to the same file), handed over at the release instead of polled for.
 *
 * SQLite's busy handler polls: a connection that finds the write lock taken sleeps 1, 2, 5, 10, 15, 20, 25… ms between
 * tries (sqliteDefaultBusyCallback in sqlite3.c), so a waiter often sleeps on long after the holder committed, and a
 * holder that commits and begins again at once can take the lock back before the sleeper wakes. Here a thread takes
 * its turn before BEGIN IMMEDIATE and gives it back after COMMIT or ROLLBACK; a waiter sleeps in Atomics.wait and is
 * woken at the release, so the lock passes without the busy handler's sleeps. Measured in docs/performance.md ("The worker thread").
 *
 * The turn is advisory: SQLite's own lock still decides (other processes, the checkpoint thread, statements outside a
 * transaction take it without a turn), and a waiter that waited STALE_TURN_MS takes the turn over.
 */
export class SqliteWriteTurns {
  /** [0]: the holder's id (its threadId + 1), 0 when free. */
  private readonly cell: Int32Array;
  private readonly me = threadId + 1;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly staleTurnMs = STALE_TURN_MS,
  ) {
    this.cell = new Int32Array(buffer);
  }

  take(): void {
    const startedAt = Date.now();
    for (;;) {
      const holder = Atomics.compareExchange(this.cell, 0, 0, this.me);
      if (holder === 0 || holder === this.me) return;
      const waited = Date.now() - startedAt;
      if (waited >= this.staleTurnMs) {
        if (Atomics.compareExchange(this.cell, 0, holder, this.me) === holder) return;
        continue;
      }
      Atomics.wait(this.cell, 0, holder, this.staleTurnMs - waited);
    }
  }

  give(): void {
    if (Atomics.compareExchange(this.cell, 0, this.me, 0) === this.me) Atomics.notify(this.cell, 0, 1);
  }
}
