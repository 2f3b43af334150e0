import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'console',
    include: ['test/**/*.test.ts'],
    // The service's test support (fixtures, spawn) is shared; its global setup is not needed here.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Each end-to-end file starts a service and a Chromium: side by side on a small machine they
    // starve each other, and the tests that race a worker on purpose (cancel while a document is
    // in progress) lose their race. One file at a time.
    fileParallelism: false,
  },
});
