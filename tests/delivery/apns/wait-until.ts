/**
 * Waits for a condition that no event announces (a connection closing on the far side, say), checking it every few
 * milliseconds; fails with `what` after `timeoutMs`. Tests wait on conditions, never on bare sleeps (docs/develop.md, convention 6).
 */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
