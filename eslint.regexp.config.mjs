// ESLint here checks one thing only (the project lints with Biome): that no regular expression can
// backtrack super-linearly on what it is given. The service's regular expressions see outside
// input (documents, sources, URLs, headers, robots.txt, sitemaps, questions), and one that
// backtracks can freeze a process on a few kilobytes (issue 26). `npm run lint` runs it.
import tsParser from '@typescript-eslint/parser';
import regexp from 'eslint-plugin-regexp';

export default [
  {
    files: ['packages/service/src/**/*.ts', 'packages/sdk/src/**/*.ts'],
    languageOptions: { parser: tsParser },
    plugins: { regexp },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
];
