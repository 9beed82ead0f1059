/**
 * The suite's one way to wait for something no event announces (a row written by a worker, a connection closing on
 * the far side, a page showing a text): poll a check every POLL_MS until it holds, and fail naming what was awaited.
 * Tests wait for conditions or signals, never for a bare sleep (docs/develop.md, "Tests"); to prove that something
 * did NOT happen, wait for a signal that it could have happened by then (`worker.pool.whenIdle()`), then assert.
 */
const POLL_MS = 10;

/** Resolves when `check` returns true; fails after `timeoutMs` with "timed out … waiting for <what>". */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Resolves when `assertion` stops throwing; after `timeoutMs` fails with the assertion's last error (which says
 * what was seen), for checks that are best written as expect() calls, like the browser tests' web-first assertions.
 */
export async function eventually(assertion: () => Promise<void> | void, timeoutMs = 10_000): Promise<void> {
  let last: unknown;
  const passes = async () => {
    try {
      await assertion();
      return true;
    } catch (error) {
      last = error;
      return false;
    }
  };
  try {
    await waitFor(passes, timeoutMs);
  } catch {
    throw last;
  }
}
