import { defineConfig } from 'vitest/config';

// The integration project: real PostgreSQL (one per run, see the global setup), S3 on loopback,
// Redis, the sandbox, processes. The unit project (vitest.unit.config.ts) needs none of them.
export default defineConfig({
  test: {
    name: 'service',
    include: ['test/integration/**/*.test.ts', 'test/bench/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
