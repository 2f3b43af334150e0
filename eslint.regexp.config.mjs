// ESLint here checks one thing only (the project lints with Biome): that no regular expression can
// backtrack super-linearly on what it is given. The service's regular expressions see outside
// input (documents, sources, URLs, headers, robots.txt, sitemaps, questions), and one that
// backtracks can freeze a process on a few kilobytes (issue 26); the console's render documents'
// text in the browser, so they are read too (issue 42). `npm run lint` runs it, and
// test/unit/gates.test.ts plants a pattern each rule must report.
//
// - no-super-linear-backtracking, no-super-linear-move: polynomial and exponential backtracking.
// - no-dupe-disjunctions: alternatives that match the same text, as in `/^(a|a)+$/`, which the two
//   above do not report; a duplicated alternative under a quantifier backtracks exponentially.
//   Its options are the plugin's defaults, written out so that a change of default cannot loosen it.
import tsParser from '@typescript-eslint/parser';
import regexp from 'eslint-plugin-regexp';

export default [
  {
    files: [
      'packages/service/src/**/*.ts',
      'packages/sdk/src/**/*.ts',
      'packages/console/src/**/*.ts',
      'packages/console/src/**/*.tsx',
    ],
    languageOptions: { parser: tsParser },
    plugins: { regexp },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      'regexp/no-dupe-disjunctions': [
        'error',
        { report: 'trivial', reportExponentialBacktracking: 'potential', reportUnreachable: 'certain' },
      ],
    },
  },
];
