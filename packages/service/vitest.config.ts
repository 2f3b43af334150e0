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
    // The AWS SDK warns on Node 20 that its releases from January 2027 need Node 22: the README
    // states the Node versions; repeating that in every run that creates an S3 client is noise.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
