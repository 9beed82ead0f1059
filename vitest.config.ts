import { defineConfig } from 'vitest/config';
import { ensureFakeTls } from './tools/fakes/fake-tls.ts';

const dialect = process.env.CLARION_TEST_DIALECT ?? 'sqlite';

// The fake APNs/FCM servers serve a certificate from a local CA. Node reads NODE_EXTRA_CA_CERTS only at process
// start, so it is set here, before the test workers (and any `clarion serve` they spawn) are forked: Clarion's
// clients then trust the fakes exactly as they would be configured in a demo, with no test-only code path.
process.env.NODE_EXTRA_CA_CERTS = ensureFakeTls().caCertPath;

export default defineConfig({
  test: {
    name: dialect,
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/harness/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 10_000,
  },
});
