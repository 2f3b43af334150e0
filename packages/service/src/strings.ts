/**
 * String trimming without regular expressions: `/x+$/` tries the run of x again from each of its
 * positions when something else follows it, quadratic in the run (the regex lint,
 * eslint.regexp.config.mjs, refuses such patterns); these loops look at each character once.
 */

/** `s` without its trailing characters for which `drop` holds. */
export function trimEndWhile(s: string, drop: (c: string) => boolean): string {
  let end = s.length;
  while (end > 0 && drop(s[end - 1]!)) end--;
  return s.slice(0, end);
}

/** A URL or path without its trailing slashes: `http://x/api//` is `http://x/api`. */
export const withoutTrailingSlashes = (s: string) => trimEndWhile(s, (c) => c === '/');
