/**
 * What a test file left open, found by comparing what keeps the process alive before and after it
 * (`process.getActiveResourcesInfo()`: handles and requests that are ref'd; unref'd timers and sockets do not count,
 * since they cannot keep a process from exiting) plus the test databases the harness opened (tests/harness/test-store.ts),
 * which an SQLite connection never shows as a handle. Pure functions: tests/setup/leak-check.test.ts proves them.
 */
export type ResourceCounts = Map<string, number>;

/** Counts resources by kind, e.g. TCPServerWrap: 1, Timeout: 3. */
export function countResources(kinds: readonly string[]): ResourceCounts {
  const counts: ResourceCounts = new Map();
  for (const kind of kinds) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** The kinds there are more of `after` than `before`, with how many more (fewer is not a leak: a file may close what an earlier one left). */
export function leakedResources(before: ResourceCounts, after: ResourceCounts): ResourceCounts {
  const leaked: ResourceCounts = new Map();
  for (const [kind, count] of after) {
    const extra = count - (before.get(kind) ?? 0);
    if (extra > 0) leaked.set(kind, extra);
  }
  return leaked;
}

/** Node's names for the resources a test usually leaks, in the words of the code that opened them. */
const meanings: Record<string, string> = {
  TCPServerWrap: 'a listening server (app.listen, a fake provider, a webhook receiver)',
  TCPSocketWrap: 'an open socket (an HTTP/2 session, a keep-alive connection, a PostgreSQL client or pool)',
  TLSWrap: 'an open TLS connection',
  Timeout: 'a timer (setInterval/setTimeout not cleared: a worker pool, relay loop or retry timer not stopped)',
  Immediate: 'a pending setImmediate',
  ProcessWrap: 'a child process (clarion serve, a CLI run) still running',
  PipeWrap: "a child process's stdio pipe",
  FSReqCallback: 'a file-system operation in flight',
  GetAddrInfoReqWrap: 'a DNS lookup in flight',
  TestDatabase: 'a test database from openTestStore/startTestApp (close() not called)',
};

/** One line per leaked kind, e.g. "1 × TCPServerWrap: a listening server (…)". */
export function describeLeaks(leaked: ResourceCounts): string {
  return [...leaked]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, count]) => `${count} × ${kind}${meanings[kind] ? `: ${meanings[kind]}` : ''}`)
    .join('\n');
}
