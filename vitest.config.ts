import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { ensureFakeTls, extraCaCertsWith } from './tools/fakes/fake-tls.ts';

const dialect = process.env.CLARION_TEST_DIALECT ?? 'sqlite';

// The fake APNs/FCM servers serve a certificate from a local CA. Node reads NODE_EXTRA_CA_CERTS only at process
// start, so it is set here, before the test workers (and any `clarion serve` they spawn) are forked: Clarion's
// clients then trust the fakes exactly as they would be configured in a demo, with no test-only code path. What the
// variable trusted already stays trusted (extraCaCertsWith).
process.env.NODE_EXTRA_CA_CERTS = extraCaCertsWith(ensureFakeTls(), process.env.NODE_EXTRA_CA_CERTS);

/** Settings both projects share. globalSetup stays on the root: it runs once and both projects see what it provides. */
const common = {
  pool: 'forks' as const,
  setupFiles: ['tests/setup/leak-check.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  teardownTimeout: 10_000,
};

/**
 * Two projects (docs/develop.md, "Tests"). Most files build the app or a fake and talk to it in-process: with
 * per-file isolation each of them re-imported the whole app, about half of the run's time, so these share one
 * module cache per worker instead. They keep no module state between files, mock nothing, touch no process.env and
 * register no hooks from helper modules (a cached module's hooks would only apply to the first file), and the leak
 * check fails a file that leaves anything open for the next. Isolated, each file in a fresh process: the engine
 * end to end (workers, fakes, the SIGKILL crash test), the CLI and the browser (child processes), the fakes' own
 * tests (tests/tools/h2-test-client.ts registers its cleanup hook at import; fake-tls.test.ts sets process.env), and
 * the leak check's own test. A new folder is isolated until it is added to SHARED on purpose.
 */
const SHARED = [
  'api',
  'config',
  'docs',
  'domain',
  'house',
  'net',
  'queue',
  'webhooks',
  'delivery/apns',
  'delivery/fcm',
  'delivery/http2',
  'delivery/live-activities',
].map((folder) => `tests/${folder}/**/*.test.ts`);

/**
 * The crash test's `clarion serve --worker` processes work the run's shared PostgreSQL database (every other file
 * that runs a worker has a database of its own) and would claim the jobs other files create there, so it runs after
 * everything else (sequence.groupOrder), beside only the fakes' own tests, which use no database.
 */
const LAST = ['tests/delivery/engine/crash-recovery.test.ts', 'tests/tools/**/*.test.ts'];

/**
 * What runs on SQLite only, because the database adds nothing to what it tests and CI must stay under 25 minutes
 * (docs/develop.md, "Suite timings"); the store itself, the API and the delivery engine run on both:
 * - the browser tests (the dashboard, the join page, the SDK in Chromium): what they add to the API tests is the pages;
 * - the provider-side chaos (connections reset, black-holed, GOAWAY, error storms): faults between the worker and
 *   APNs/FCM, where the database is a bystander. PostgreSQL's own faults have theirs (postgres-restart.test.ts,
 *   serve-processes.test.ts, tests/store);
 * - the CLI commands whose store calls are the API's own (accounts, keys, channels, apps, send, the live view, the
 *   README's quickstart): the commands with code of their own per database stay on both (backup and restore,
 *   subscriber import, start-up messages).
 */
const SQLITE_ONLY =
  dialect === 'postgres'
    ? [
        'tests/web/**/*.test.ts',
        'tests/chaos/connection-faults-event-loop.test.ts',
        'tests/chaos/connection-faults-worker-thread.test.ts',
        'tests/chaos/network-faults.test.ts',
        'tests/chaos/provider-storms.test.ts',
        'tests/cli/accounts-add-owner.test.ts',
        'tests/cli/apps-cli.test.ts',
        'tests/cli/cli-end-to-end.test.ts',
        'tests/cli/cli-output.test.ts',
        'tests/cli/live.test.ts',
        'tests/cli/readme-quickstart.test.ts',
        'tests/cli/send.test.ts',
        'tests/cli/subscribers-list.test.ts',
        'tests/cli/version.test.ts',
        'tests/cli/node-version.test.ts',
      ]
    : [];

const projects: TestProjectInlineConfiguration[] = [
  { test: { ...common, name: `shared (${dialect})`, include: SHARED, isolate: false } },
  {
    test: {
      ...common,
      name: `isolated (${dialect})`,
      include: ['tests/**/*.test.ts'],
      exclude: [...SHARED, ...LAST, ...SQLITE_ONLY],
      isolate: true,
    },
  },
  {
    test: { ...common, name: `isolated, last (${dialect})`, include: LAST, isolate: true, sequence: { groupOrder: 1 } },
  },
];

export default defineConfig({
  test: {
    globalSetup: ['tests/harness/global-setup.ts'],
    // Vitest's default is one worker less than the cores: 1 on the 2-core machines, which leaves a core idle while
    // the tests wait (on the database, the fakes, child processes, Chromium). 3 was tried and starved the CLI,
    // crash and browser tests of CPU on a loaded machine (docs/develop.md, "Tests"); --maxWorkers overrides it.
    maxWorkers: 2,
    projects,
  },
});
