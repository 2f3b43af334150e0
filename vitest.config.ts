import { defineConfig } from 'vitest/config';

// Each package owns its test configuration; `npm test` runs them all. The service has two speeds:
// unit tests without any backing service, and integration tests against real ones.
export default defineConfig({
  test: {
    projects: [
      'packages/sdk',
      'packages/console',
      'packages/service/vitest.config.ts',
      'packages/service/vitest.unit.config.ts',
    ],
  },
});
