import { defineConfig } from 'vitest/config';

// Tests of one module at a time with in-memory fakes (test/support/fakes.ts): no database, no
// global setup, seconds in all. `npm run test:unit` runs them with the other packages' unit tests.
export default defineConfig({
  test: {
    name: 'service-unit',
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
    // Unit tests share nothing global, so one process per worker runs them all: half the wall time.
    isolate: false,
  },
});
