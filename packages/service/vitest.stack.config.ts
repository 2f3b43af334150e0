import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The container test (test/stack): minutes long, run by `npm run test:stack` and by CI, not by `npm test`.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    name: 'stack',
    include: ['test/stack/**/*.stack.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 3_600_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
