import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId, Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/database.ts';
import { SqliteWriteTurns } from '../../src/store/sqlite/sqlite-write-turns.ts';

// The API thread and the worker thread of one `clarion serve` hand SQLite's write lock over through these turns
// (src/store/sqlite/sqlite-write-turns.ts) instead of polling for it with the busy handler's sleeps.
const threads: Worker[] = [];
afterEach(async () => {
  await Promise.all(threads.splice(0).map((thread) => thread.terminate()));
});

type ThreadMessage = { type: 'taking' } | { type: 'took'; markWhenTaken: number } | { type: 'gave' };

function startTaker(buffer: SharedArrayBuffer, marks: SharedArrayBuffer, staleTurnMs?: number) {
  const thread = new Worker(new URL('./fixtures/write-turn-thread.mjs', import.meta.url), {
    workerData: { buffer, marks, staleTurnMs },
  });
  threads.push(thread);
  const messages: ThreadMessage[] = [];
  const waiting = new Map<ThreadMessage['type'], () => void>();
  thread.on('message', (message: ThreadMessage) => {
    messages.push(message);
    waiting.get(message.type)?.();
  });
  const next = (type: ThreadMessage['type']) =>
    new Promise<ThreadMessage>((resolve, reject) => {
      const seen = messages.find((message) => message.type === type);
      if (seen) return resolve(seen);
      waiting.set(type, () => resolve(messages.find((message) => message.type === type)!));
      thread.once('error', reject);
    });
  return { thread, next };
}

describe('SqliteWriteTurns', () => {
  it('keeps another thread waiting while the turn is held, and hands the turn over when it is given', async () => {
    const buffer = new SharedArrayBuffer(4);
    const marks = new SharedArrayBuffer(4);
    const turns = new SqliteWriteTurns(buffer);
    turns.take();
    const taker = startTaker(buffer, marks);
    await taker.next('taking');
    // Until the thread sleeps in its wait: only then does a notify wake a waiter (which finds the turn still held and
    // waits again). Had the thread not waited for the turn, it would read the mark before it is set.
    while (Atomics.notify(new Int32Array(buffer), 0, 1) === 0) await new Promise((resolve) => setImmediate(resolve));
    Atomics.store(new Int32Array(marks), 0, 1);
    turns.give();
    expect(await taker.next('took')).toEqual({ type: 'took', markWhenTaken: 1 });
    expect(Atomics.load(new Int32Array(buffer), 0)).toBe(taker.thread.threadId + 1);
    taker.thread.postMessage('give');
    await taker.next('gave');
    expect(Atomics.load(new Int32Array(buffer), 0)).toBe(0);
    // Free again: this thread takes it at once.
    turns.take();
    expect(Atomics.load(new Int32Array(buffer), 0)).toBe(threadId + 1);
    turns.give();
  });

  it('lets a waiter take over a turn held past the stale limit, and the old holder giving it back does not free it', async () => {
    const buffer = new SharedArrayBuffer(4);
    const turns = new SqliteWriteTurns(buffer);
    turns.take();
    const taker = startTaker(buffer, new SharedArrayBuffer(4), 200);
    await taker.next('took');
    expect(Atomics.load(new Int32Array(buffer), 0)).toBe(taker.thread.threadId + 1);
    turns.give();
    expect(Atomics.load(new Int32Array(buffer), 0)).toBe(taker.thread.threadId + 1);
  });
});

describe('SQLite transactions with write turns', () => {
  it('hold the turn from BEGIN to COMMIT, and give it back after a COMMIT or a ROLLBACK', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'clarion-write-turns-'));
    const buffer = new SharedArrayBuffer(4);
    const store = openStore({ dataDir, sqliteWriteTurns: buffer });
    const holder = () => Atomics.load(new Int32Array(buffer), 0);
    try {
      const during = await store.db.transaction().execute(async (trx) => {
        await trx.selectNoFrom((eb) => eb.val(1).as('n')).execute();
        return holder();
      });
      expect(during).toBe(threadId + 1);
      expect(holder()).toBe(0);
      await expect(
        store.db.transaction().execute(async () => {
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(holder()).toBe(0);
    } finally {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
