import { z } from 'zod';

/** Most patterns in one list (`include` or `exclude`). */
export const MAX_PATTERNS = 50;
/** Most characters of one pattern. */
export const MAX_PATTERN_LENGTH = 256;
/**
 * Most characters of one list's patterns together: every character is a position each character
 * of a path steps, so this, not the number of patterns, sets what matching a path costs.
 */
export const MAX_PATTERN_CHARACTERS = 2048;
/**
 * Most characters of a path that patterns are matched against. Longer paths are not matched at all:
 * a source with patterns wants none of them (see itemFilter). S3 keys stop at 1,024 bytes and a
 * documentation URL's path at a few hundred characters; what is longer is generated, and every
 * character costs a step of every pattern.
 */
export const MAX_MATCHED_PATH_LENGTH = 2048;

/**
 * Include and exclude patterns of a source (settings `include` and `exclude`): `*` any characters
 * but `/`, `**` any characters, `?` one character but `/`, anything else itself. A pattern without a
 * `/` matches an item's last part (`*.gz` anywhere), one with a `/` its whole path (`docs/**`,
 * `/blog/*`). Never a regular expression built from what a user typed: see PatternSet.
 */
export const GlobList = z
  .array(
    z
      .string()
      .min(1, 'a pattern cannot be empty')
      .max(MAX_PATTERN_LENGTH, `a pattern has at most ${MAX_PATTERN_LENGTH} characters`),
  )
  .max(MAX_PATTERNS, `at most ${MAX_PATTERNS} patterns`)
  .refine(
    (list) => list.reduce((n, p) => n + p.length, 0) <= MAX_PATTERN_CHARACTERS,
    `at most ${MAX_PATTERN_CHARACTERS.toLocaleString('en')} characters of patterns in all`,
  )
  .optional()
  .describe('Glob patterns: * (not /), ** (anything), ?; without a / they match the last part of the path');

type Token = { kind: 'char'; c: number } | { kind: 'one' } | { kind: 'star' } | { kind: 'globstar' };

function tokensOf(pattern: string): Token[] {
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
    else tokens.push({ kind: 'char', c: c.codePointAt(0)! });
  }
  return tokens;
}

const SLASH = 0x2f;

/**
 * Several patterns matched together in one walk over a path: each pattern of m tokens is m + 1
 * positions (tokens consumed so far), all patterns' positions are the bits of one vector, and a
 * character moves every live position at once with a shift and a few masks (the Shift-And
 * algorithm with self-loops for the stars). A path costs its length times the patterns' positions
 * over 32, whatever the patterns are: nothing backtracks, and a list of 50 patterns is one walk, not
 * 50. The masks are built once per list, when the source is synced.
 */
class PatternSet {
  private readonly words: number;
  /** Each pattern's position 0. */
  private readonly starts: Int32Array;
  /** Each pattern's last position: the whole pattern consumed. */
  private readonly ends: Int32Array;
  /** Positions at a star: a star may match nothing, so the position after it is live as well. */
  private readonly stars: Int32Array;
  /** Positions that stay on any character but `/` (a star), and on any character (a globstar). */
  private readonly stayOther: Int32Array;
  private readonly staySlash: Int32Array;
  /** Positions reached by consuming a character: per character named by a pattern, `/`, and any other. */
  private readonly advanceBy = new Map<number, Int32Array>();
  /** The masks of ASCII characters, looked up by code without a map. */
  private readonly ascii: Int32Array[] = [];
  private readonly advanceSlash: Int32Array;
  private readonly advanceOther: Int32Array;
  private readonly start: Int32Array;
  // Two state vectors reused by every walk (a connector matches one path at a time).
  private now: Int32Array;
  private next: Int32Array;

  constructor(patterns: readonly string[]) {
    const compiled = patterns.map(tokensOf);
    const bits = compiled.reduce((n, t) => n + t.length + 1, 0);
    this.words = Math.max(1, Math.ceil(bits / 32));
    const vector = () => new Int32Array(this.words);
    const set = (v: Int32Array, bit: number) => {
      v[bit >>> 5] = v[bit >>> 5]! | (1 << (bit & 31));
    };
    this.starts = vector();
    this.ends = vector();
    this.stars = vector();
    this.stayOther = vector();
    this.staySlash = vector();
    this.advanceSlash = vector();
    this.advanceOther = vector();
    // `?` consumes whatever is not `/`: every character's own mask starts from those positions.
    const ones: number[] = [];
    const byChar: [number, number][] = [];
    let base = 0;
    for (const tokens of compiled) {
      set(this.starts, base);
      set(this.ends, base + tokens.length);
      tokens.forEach((t, i) => {
        const at = base + i;
        if (t.kind === 'star') {
          set(this.stars, at);
          set(this.stayOther, at);
        } else if (t.kind === 'globstar') {
          set(this.stars, at);
          set(this.stayOther, at);
          set(this.staySlash, at);
        } else if (t.kind === 'one') ones.push(at + 1);
        else if (t.c === SLASH) set(this.advanceSlash, at + 1);
        else byChar.push([t.c, at + 1]);
      });
      base += tokens.length + 1;
    }
    for (const bit of ones) set(this.advanceOther, bit);
    for (const [c, bit] of byChar) {
      let mask = this.advanceBy.get(c);
      if (!mask) {
        mask = this.advanceOther.slice();
        this.advanceBy.set(c, mask);
      }
      set(mask, bit);
    }
    for (let c = 0; c < 128; c++) this.ascii.push(this.advanceBy.get(c) ?? this.advanceOther);
    this.start = this.starts.slice();
    this.close(this.start);
    this.now = vector();
    this.next = vector();
  }

  /** Makes the position after each live star live too (stars are never next to each other: `***` is one). */
  private close(v: Int32Array) {
    let carry = 0;
    for (let w = 0; w < this.words; w++) {
      const skipping = v[w]! & this.stars[w]!;
      v[w] = v[w]! | (skipping << 1) | carry;
      carry = skipping >>> 31;
    }
  }

  /** Whether any of the patterns matches the whole of `text` (a path of at most MAX_MATCHED_PATH_LENGTH). */
  matches(text: string): boolean {
    const words = this.words;
    const stars = this.stars;
    let now = this.now;
    let next = this.next;
    now.set(this.start);
    for (let i = 0; i < text.length; ) {
      const c = text.codePointAt(i)!;
      i += c > 0xffff ? 2 : 1;
      const advance =
        c === SLASH
          ? this.advanceSlash
          : c < 128
            ? this.ascii[c]!
            : (this.advanceBy.get(c) ?? this.advanceOther);
      const stay = c === SLASH ? this.staySlash : this.stayOther;
      let carry = 0;
      let skipCarry = 0;
      let live = 0;
      for (let w = 0; w < words; w++) {
        const v = now[w]!;
        const moved = (((v << 1) | carry) & advance[w]!) | (v & stay[w]!);
        carry = v >>> 31;
        // The star closure in the same pass: a live star also makes the position after it live.
        const skipping = moved & stars[w]!;
        const closed = moved | (skipping << 1) | skipCarry;
        skipCarry = skipping >>> 31;
        next[w] = closed;
        live |= closed;
      }
      if (live === 0) return false;
      const t = now;
      now = next;
      next = t;
    }
    for (let w = 0; w < words; w++) if (now[w]! & this.ends[w]!) return true;
    return false;
  }
}

/** Patterns with a `/` walk the whole path, the others only its last part. */
function listMatcher(patterns: readonly string[]): (path: string) => boolean {
  const whole = patterns.filter((p) => p.includes('/'));
  const last = patterns.filter((p) => !p.includes('/'));
  const wholeSet = whole.length ? new PatternSet(whole) : undefined;
  const lastSet = last.length ? new PatternSet(last) : undefined;
  return (p) => !!wholeSet?.matches(p) || !!lastSet?.matches(p.slice(p.lastIndexOf('/') + 1));
}

const withoutSlash = (path: string) => (path.startsWith('/') ? path.slice(1) : path);

/** A compiled pattern: whether it matches an item's path (a leading `/` is ignored). */
export function globMatcher(pattern: string): (path: string) => boolean {
  const matches = listMatcher([pattern]);
  return (path) => matches(withoutSlash(path));
}

/**
 * Whether an item's path is wanted: matched by an include pattern (any, when there are none) and by
 * no exclude pattern. The patterns are compiled once, here. A path longer than
 * MAX_MATCHED_PATH_LENGTH is wanted only by a source without patterns: matching it would cost in
 * proportion to its length, and the patterns cannot vouch for what they never read.
 */
export function itemFilter(
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
): (path: string) => boolean {
  const inc = include?.length ? listMatcher(include) : undefined;
  const exc = exclude?.length ? listMatcher(exclude) : undefined;
  if (!inc && !exc) return () => true;
  return (path) => {
    if (path.length > MAX_MATCHED_PATH_LENGTH) return false;
    const p = withoutSlash(path);
    return (!inc || inc(p)) && !exc?.(p);
  };
}
