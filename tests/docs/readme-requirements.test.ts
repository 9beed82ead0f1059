import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * What the README says a newcomer needs, against what the code reads: the Node range in package.json, the test
 * database URL scripts/test.js falls back to, and the variable the browser tests take Chromium from.
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');

describe('README.md, what the two commands need', () => {
  it('names the PostgreSQL URL npm test uses by default, and that it skips that half without one', () => {
    const fallback = /process\.env\.CLARION_TEST_DATABASE_URL \?\? '([^']+)'/.exec(read('scripts/test.js'))![1]!;
    expect(readme).toContain(`\`CLARION_TEST_DATABASE_URL\`, by\ndefault \`${fallback}\``);
    expect(readme).toMatch(/skips that half when nothing answers there/);
  });

  it('says where Chromium comes from, by the variable the browser tests read', () => {
    expect(read('tests/harness/browser.ts')).toContain('process.env.CLARION_CHROMIUM');
    expect(readme).toContain('`CLARION_CHROMIUM`');
    expect(readme).toContain('apt-get install chromium');
  });

  it('states the Node versions package.json accepts', () => {
    const engines = JSON.parse(read('package.json')).engines.node as string;
    const minimum = /^>=(\d+\.\d+)$/.exec(engines)![1]!;
    expect(readme).toContain(`(${minimum} and later still work;`);
  });
});
