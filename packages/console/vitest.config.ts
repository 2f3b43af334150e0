import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'console',
    include: ['test/**/*.test.ts'],
    // The service's test support (fixtures, spawn) is shared; its global setup is not needed here.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
