import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'service',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
