import { promisify } from 'node:util';

/**
 * Which timers the code under test started and left running. `process.getActiveResourcesInfo()` counts timers too,
 * but vitest itself keeps one that comes and goes (it batches its progress reports on a 100 ms timer), so a count
 * taken at the start of a file may include it and hide a leaked timer; here each timer is known by identity instead.
 * Vitest's own timers are not seen: it keeps the original functions from before the setup files ran.
 *
 * Installed once per process (the API tests share a process between files: vitest.config.ts).
 */
interface TrackerState {
  /** Pending timers, with the generation they were started in. */
  live: Map<NodeJS.Timeout, number>;
  generation: number;
}

// On globalThis, not in this module: the patched functions must share their state with whichever copy of this
// module a later file's setup evaluates.
const key = Symbol.for('clarion.timerTracker');

function state(): TrackerState {
  const global = globalThis as typeof globalThis & { [key]?: TrackerState };
  return (global[key] ??= { live: new Map(), generation: 0 });
}

export function installTimerTracker(): void {
  const global = globalThis as typeof globalThis & { [key]?: TrackerState };
  if (global[key]) return;
  const { live } = state();
  const {
    setTimeout: originalSetTimeout,
    setInterval: originalSetInterval,
    clearTimeout: originalClearTimeout,
    clearInterval: originalClearInterval,
  } = globalThis;

  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const timer = originalSetTimeout(
      (...callArgs: unknown[]) => {
        live.delete(timer);
        callback(...callArgs);
      },
      ms,
      ...args,
    );
    live.set(timer, state().generation);
    return timer;
  }) as typeof setTimeout;
  globalThis.setInterval = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const timer = originalSetInterval(callback, ms, ...args);
    live.set(timer, state().generation);
    return timer;
  }) as typeof setInterval;
  globalThis.clearTimeout = ((timer: NodeJS.Timeout | string | number | undefined) => {
    if (timer instanceof Object) live.delete(timer);
    originalClearTimeout(timer);
  }) as typeof clearTimeout;
  globalThis.clearInterval = ((timer: NodeJS.Timeout | string | number | undefined) => {
    if (timer instanceof Object) live.delete(timer);
    originalClearInterval(timer);
  }) as typeof clearInterval;
  // util.promisify(setTimeout) keeps working (Node's setTimeout carries its promise form under this symbol).
  Object.defineProperty(globalThis.setTimeout, promisify.custom, {
    value: (originalSetTimeout as unknown as Record<symbol, unknown>)[promisify.custom],
  });
}

/** Starts a new generation: timers started from now on belong to it. Returns its number. */
export function markTimers(): number {
  return (state().generation += 1);
}

/** Timers of generation `mark` or later that are still pending and keep the process alive. */
export function liveTimersSince(mark: number): number {
  let count = 0;
  for (const [timer, born] of state().live) {
    if (born >= mark && timer.hasRef()) count += 1;
  }
  return count;
}
