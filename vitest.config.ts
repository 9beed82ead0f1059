import { defineConfig } from 'vitest/config';

const dialect = process.env.CLARION_TEST_DIALECT ?? 'sqlite';

export default defineConfig({
  test: {
    name: dialect,
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/harness/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Fail when a test leaves a server, socket or timer open (STYLE.md 6).
    teardownTimeout: 10_000,
  },
});
