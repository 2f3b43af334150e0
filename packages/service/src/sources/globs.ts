import { z } from 'zod';

/**
 * Include and exclude patterns of a source (settings `include` and `exclude`): `*` any characters
 * but `/`, `**` any characters, `?` one character but `/`, anything else itself. A pattern without a
 * `/` matches an item's last part (`*.gz` anywhere), one with a `/` its whole path (`docs/**`,
 * `/blog/*`). Matched by stepping a set of pattern positions through the path, never by a regular
 * expression built from what a user typed: the time is bounded by the path's and the pattern's
 * lengths, with no backtracking.
 */
export const GlobList = z
  .array(z.string().min(1).max(256))
  .max(50)
  .optional()
  .describe('Glob patterns: * (not /), ** (anything), ?; without a / they match the last part of the path');

type Token = { kind: 'char'; c: string } | { kind: 'one' } | { kind: 'star' } | { kind: 'globstar' };

function compile(pattern: string): { tokens: Token[]; wholePath: boolean } {
  const wholePath = pattern.includes('/');
  const tokens: Token[] = [];
  // By code point, as the path is walked.
  const chars = Array.from(pattern.startsWith('/') ? pattern.slice(1) : pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '*' && chars[i + 1] === '*') {
      tokens.push({ kind: 'globstar' });
      while (chars[i + 1] === '*') i++;
    } else if (c === '*') tokens.push({ kind: 'star' });
    else if (c === '?') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'char', c });
  }
  return { tokens, wholePath };
}

/** Whether the tokens match the whole text: a breadth-first walk over pattern positions. */
function run(tokens: Token[], text: string): boolean {
  const m = tokens.length;
  let now = new Uint8Array(m + 1);
  let next = new Uint8Array(m + 1);
  const close = (set: Uint8Array) => {
    // A star may match nothing: from it, the position after it is reached too.
    for (let i = 0; i < m; i++) {
      const t = tokens[i]!;
      if (set[i] && (t.kind === 'star' || t.kind === 'globstar')) set[i + 1] = 1;
    }
  };
  now[0] = 1;
  close(now);
  for (const c of text) {
    next.fill(0);
    let any = false;
    for (let i = 0; i < m; i++) {
      if (!now[i]) continue;
      const t = tokens[i]!;
      if (t.kind === 'char' ? t.c === c : t.kind === 'one' && c !== '/') {
        next[i + 1] = 1;
        any = true;
      } else if (t.kind === 'globstar' || (t.kind === 'star' && c !== '/')) {
        next[i] = 1;
        any = true;
      }
    }
    if (!any) return false;
    close(next);
    [now, next] = [next, now];
  }
  return now[m] === 1;
}

/** A compiled pattern: whether it matches an item's path (without a leading `/`). */
export function globMatcher(pattern: string): (path: string) => boolean {
  const { tokens, wholePath } = compile(pattern);
  return (path) => {
    const p = path.startsWith('/') ? path.slice(1) : path;
    return run(tokens, wholePath ? p : p.slice(p.lastIndexOf('/') + 1));
  };
}

/** Whether an item's path is wanted: matched by an include pattern (any, when there are none) and by no exclude pattern. */
export function itemFilter(
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
): (path: string) => boolean {
  const inc = (include ?? []).map(globMatcher);
  const exc = (exclude ?? []).map(globMatcher);
  return (path) => (inc.length === 0 || inc.some((m) => m(path))) && !exc.some((m) => m(path));
}
