/**
 * Time source, injected wherever time matters so tests move time instead of sleeping. Milliseconds since epoch.
 * `every` runs a periodic task on this clock's time: the queue's poll, heartbeat and rescue (src/queue/worker-pool.ts)
 * and the provider clients' idle sweep (src/delivery/provider-client-registry.ts) use it, so a test that moves a
 * manual clock moves them too. What measures a network's progress (request deadlines, the HTTP/2 pool's pings, a
 * stalled lane) runs on real time: a peer's silence is not something a test's clock can speed up.
 */
export interface Clock {
  now(): number;
  /**
   * Calls `tick` every `ms` of this clock's time until the returned function is called. `keepsProcessAlive: false`:
   * a task that alone should not keep the process running (a sweep), as an unref'd timer.
   */
  every(ms: number, tick: () => void, options?: { keepsProcessAlive?: boolean }): () => void;
}

function realEvery(ms: number, tick: () => void, options?: { keepsProcessAlive?: boolean }): () => void {
  const timer = setInterval(tick, ms);
  if (options?.keepsProcessAlive === false) timer.unref();
  return () => clearInterval(timer);
}

export const systemClock: Clock = { now: () => Date.now(), every: realEvery };

interface ManualTask {
  ms: number;
  tick: () => void;
  next: number;
}

/**
 * A clock tests can set and advance. Its periodic tasks (`every`) run in real time, as the system clock's do, unless
 * it is made with `{ manualTasks: true }`: then a task runs when `set` or `advance` moves the clock past its time, once
 * however far the clock moved (as a late interval timer fires once), and never otherwise.
 */
export class ManualClock implements Clock {
  private readonly tasks = new Set<ManualTask>();

  constructor(
    private current: number = Date.UTC(2026, 0, 15, 12, 0, 0),
    private readonly options: { manualTasks?: boolean } = {},
  ) {}

  now(): number {
    return this.current;
  }

  every(ms: number, tick: () => void, options?: { keepsProcessAlive?: boolean }): () => void {
    if (!this.options.manualTasks) return realEvery(ms, tick, options);
    const task: ManualTask = { ms, tick, next: this.current + ms };
    this.tasks.add(task);
    return () => this.tasks.delete(task);
  }

  set(ms: number): void {
    this.current = ms;
    this.runDueTasks();
  }

  advance(ms: number): void {
    this.set(this.current + ms);
  }

  private runDueTasks(): void {
    for (const task of [...this.tasks]) {
      if (!this.tasks.has(task) || task.next > this.current) continue;
      task.next = this.current + task.ms;
      task.tick();
    }
  }
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
