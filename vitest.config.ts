import { defineConfig } from 'vitest/config';

// Each package owns its test configuration; `npm test` runs them all.
export default defineConfig({
  test: {
    projects: ['packages/*'],
  },
});
