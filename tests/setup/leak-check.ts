import { afterAll, beforeAll } from 'vitest';
import { openTestStores } from '../harness/open-test-stores.ts';
import { countResources, describeLeaks, leakedResources, type ResourceCounts } from './resource-leaks.ts';
import { installTimerTracker, liveTimersSince, markTimers } from './timer-tracker.ts';

/**
 * Fails a test file that leaves a server, socket, timer, child process or test database open. Without this, a
 * leak shows up files later (the API tests share one process per worker: vitest.config.ts) or as a run that never
 * exits. Runs around each file: vitest evaluates setup files again for every test file, even without isolation, and
 * its "after" hooks run in reverse order, so this afterAll runs after the file's own.
 *
 * Closing is often asynchronous (a socket's close event, a child's exit), so a leak is only reported when it is
 * still there after GRACE_MS; the worker's own IPC channel is open before and after, so it never counts.
 */
const GRACE_MS = 1_000;

installTimerTracker();

let before: ResourceCounts;
let timers: number;

function snapshot(): ResourceCounts {
  // Timers are counted by timer-tracker.ts, which tells the file's own from vitest's.
  const counts = countResources(process.getActiveResourcesInfo().filter((kind) => kind !== 'Timeout'));
  const databases = openTestStores.size;
  if (databases > 0) counts.set('TestDatabase', databases);
  const live = timers === undefined ? 0 : liveTimersSince(timers);
  if (live > 0) counts.set('Timeout', live);
  return counts;
}

beforeAll(() => {
  timers = markTimers();
  before = snapshot();
});

afterAll(async () => {
  const deadline = Date.now() + GRACE_MS;
  let leaked = leakedResources(before, snapshot());
  while (leaked.size > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    leaked = leakedResources(before, snapshot());
  }
  if (leaked.size > 0) {
    throw new Error(`this test file left open (close it in afterAll/afterEach):\n${describeLeaks(leaked)}`);
  }
});
