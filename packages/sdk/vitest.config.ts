import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'sdk',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // The integration files boot the real server (embedded PostgreSQL) in beforeAll.
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
