#!/usr/bin/env node
// `npm test`: the whole suite on SQLite, then on PostgreSQL when a server is reachable (CLARION_TEST_DATABASE_URL,
// default postgres://postgres@127.0.0.1:5432/test). Under CI (CI=true) PostgreSQL is required, not optional.
// Extra arguments go to vitest (e.g. `npm test -- tests/api/channels`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const adminUrl = process.env.CLARION_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const only = process.env.CLARION_TEST_DIALECT;
const extraArgs = process.argv.slice(2);
const reportDir = mkdtempSync(join(tmpdir(), 'clarion-test-report-'));

async function postgresReachable() {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    console.log(`PostgreSQL not reachable at ${redact(adminUrl)}: ${error.message}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function redact(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

function runVitest(dialect) {
  console.log(`\n=== test suite on ${dialect} ===`);
  const outputFile = join(reportDir, `${dialect}.json`);
  const result = spawnSync(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${outputFile}`,
      ...extraArgs,
    ],
    { stdio: 'inherit', env: { ...process.env, CLARION_TEST_DIALECT: dialect } },
  );
  let counts = { passed: 0, failed: 0, skipped: 0 };
  let failures = [];
  try {
    const report = JSON.parse(readFileSync(outputFile, 'utf8'));
    // A file can fail with every test passed (an afterAll error such as the leak check's, or an import error): each
    // such file counts as one failure, so the last line never says 0 failed for a red run.
    const fileFailures = report.testResults.filter(
      (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
    ).length;
    counts = {
      passed: report.numPassedTests,
      failed: report.numFailedTests + fileFailures,
      skipped: report.numPendingTests + report.numTodoTests,
    };
    failures = failedTests(report);
  } catch {
    counts.failed += 1; // no report: the run itself broke
    failures = ['(no report: vitest itself did not finish)'];
  }
  return { dialect, status: result.status ?? 1, failures, ...counts };
}

// One line per failed test or file, with the first line of its message. CI keeps only the tail of the output, so the
// names are printed again after the totals: a red run must say which test broke without the full log.
function failedTests(report) {
  const root = process.cwd() + '/';
  const lines = [];
  for (const file of report.testResults) {
    const name = file.name.startsWith(root) ? file.name.slice(root.length) : file.name;
    const tests = file.assertionResults.filter((test) => test.status === 'failed');
    for (const test of tests) lines.push(`${name} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    if (file.status === 'failed' && tests.length === 0) lines.push(`${name}: ${firstLine(file.message)}`);
  }
  return lines;
}

function firstLine(text) {
  const line =
    String(text ?? '')
      .split('\n')
      .find((part) => part.trim() !== '') ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

const dialects = [];
if (!only || only === 'sqlite') dialects.push('sqlite');
if (!only || only === 'postgres') {
  if (await postgresReachable()) dialects.push('postgres');
  else if (process.env.CI === 'true' || only === 'postgres') {
    console.error('PostgreSQL is required here (CI=true or CLARION_TEST_DIALECT=postgres) but is not reachable.');
    process.exit(1);
  } else console.log('Skipping the PostgreSQL run (start PostgreSQL or set CLARION_TEST_DATABASE_URL to include it).');
}

const results = dialects.map(runVitest);
rmSync(reportDir, { recursive: true, force: true });
const total = results.reduce(
  (sum, r) => ({ passed: sum.passed + r.passed, failed: sum.failed + r.failed, skipped: sum.skipped + r.skipped }),
  { passed: 0, failed: 0, skipped: 0 },
);
console.log('');
for (const r of results) {
  for (const failure of r.failures) console.log(`FAILED (${r.dialect}) ${failure}`);
}
for (const r of results) console.log(`${r.dialect}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(results.every((r) => r.status === 0) && total.failed === 0 && total.passed > 0 ? 0 : 1);
