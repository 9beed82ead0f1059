/** What every fake records of one request, besides its own protocol's details. */
export interface RequestRecordBase {
  /** Clock time (ms) the request was answered. */
  at: number;
  /** Which connection it came on (HTTP/2 session or HTTP/1.1 socket), to assert on connection reuse. */
  connectionId: number;
  httpVersion: string;
  method: string;
  path: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * An append-only list of what a fake received, with waits that resolve on an event (each append), never by polling,
 * so tests wait on a condition rather than a sleep (docs/develop.md, convention 6).
 */
export class FakeRecord<Entry> {
  private readonly list: Entry[] = [];

  /**
   * `keep: false` only counts and notifies: a benchmark pushing millions of requests through a long-running fake
   * (tools/run-fakes.ts --forget) must not measure the fake's growing memory. Waits then see an always-empty list.
   */
  constructor(private readonly keep = true) {}

  private readonly waiters = new Set<Waiter>();
  private readonly listeners = new Set<(entry: Entry) => void>();

  /** Everything recorded so far, oldest first. The array is live: later entries appear in it. */
  get entries(): readonly Entry[] {
    return this.list;
  }

  add(entry: Entry): void {
    if (this.keep) this.list.push(entry);
    for (const listener of this.listeners) listener(entry);
    for (const waiter of [...this.waiters]) waiter.check();
  }

  /** Calls `listener` with every later entry (e.g. to log traffic); returns the unsubscribe function. */
  subscribe(listener: (entry: Entry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first `count` entries once that many are recorded. */
  async waitForCount(count: number, timeoutMs = 5_000): Promise<Entry[]> {
    await this.waitUntil((entries) => entries.length >= count, timeoutMs, `${count} request(s)`);
    return this.list.slice(0, count);
  }

  /** Resolves with the first entry matching `predicate`, already recorded or still to come. */
  async waitForMatch(predicate: (entry: Entry) => boolean, timeoutMs = 5_000): Promise<Entry> {
    let found: Entry | undefined;
    await this.waitUntil(
      (entries) => {
        found = entries.find(predicate);
        return found !== undefined;
      },
      timeoutMs,
      'a matching request',
    );
    return found as Entry;
  }

  /** Forgets the entries; pending waits keep waiting for new ones. */
  clear(): void {
    this.list.length = 0;
  }

  /** Rejects every pending wait; used when the fake closes so no test hangs until its own timeout. */
  abortWaits(reason: string): void {
    for (const waiter of [...this.waiters]) waiter.fail(new Error(reason));
  }

  private waitUntil(condition: (entries: readonly Entry[]) => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        check: () => {
          if (!condition(this.list)) return;
          finish();
          resolve();
        },
        fail: (error) => {
          finish();
          reject(error);
        },
      };
      const timer = setTimeout(
        () =>
          waiter.fail(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${this.list.length} recorded`)),
        timeoutMs,
      );
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      this.waiters.add(waiter);
      waiter.check();
    });
  }
}

interface Waiter {
  check(): void;
  fail(error: Error): void;
}
