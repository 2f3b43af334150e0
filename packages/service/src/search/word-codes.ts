import { ENGLISH, type Language } from '../text/language.js';

/**
 * A passage's words as 32-bit codes, computed once when the passage is indexed and stored beside it,
 * so that ranking a search's candidates reads numbers instead of tokenising text (issue 7: tokenising
 * the candidates was a fifth of the search path's CPU). A content word's code is the hash of its stem
 * with the low bit clear; a stop word's is the hash of the word itself with the low bit set. The
 * words are the passage language's tokens (`Language.tokens`, `isStopWord`, `term`), so the signals
 * computed from codes equal the ones defined on the text, unless two terms share a 31-bit hash (for
 * one query term and one passage of 200 words, a chance of about one in ten million).
 */
export function wordCodes(text: string, language: Language = ENGLISH): Uint32Array {
  const tokens = language.tokens(text);
  const codes = new Uint32Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) codes[i] = wordCode(tokens[i]!.word, language);
  return codes;
}

/**
 * `compute` of a word in a language, remembered per language: a passage's words are mostly words
 * seen before (bounded: cleared when full, which costs less on this path than keeping the order of use).
 */
export function wordMemo<V>(compute: (word: string, language: Language) => V) {
  const caches = new WeakMap<Language, Map<string, V>>();
  return (word: string, language: Language): V => {
    let cache = caches.get(language);
    if (!cache) {
      cache = new Map();
      caches.set(language, cache);
    }
    let value = cache.get(word);
    if (value === undefined) {
      if (cache.size > 100_000) cache.clear();
      value = compute(word, language);
      cache.set(word, value);
    }
    return value;
  };
}

/** One word's code (see wordCodes). */
export const wordCode = wordMemo((word, language) =>
  language.isStopWord(word) ? (hash(word) | 1) >>> 0 : stemCode(language.term(word)),
);

/** FNV-1a over UTF-16 code units. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The code of a content word with this stem. */
export const stemCode = (stem: string) => (hash(stem) & ~1) >>> 0;
const isContent = (code: number) => (code & 1) === 0;

/** A query prepared once per search for the signals below. */
export interface CodedQuery {
  /** Codes of the query's distinct content stems. */
  terms: Uint32Array;
  /** The query's adjacent content-word pairs (of different stems), as indexes into `terms`. */
  pairs: [number, number][];
}

export function codedQuery(q: string, language: Language = ENGLISH): CodedQuery {
  const index = new Map<number, number>();
  const idOf = (code: number) => {
    let id = index.get(code);
    if (id === undefined) {
      id = index.size;
      index.set(code, id);
    }
    return id;
  };
  const codes = language
    .tokens(q)
    .filter((t) => !language.isStopWord(t.word))
    .map((t) => stemCode(language.term(t.word)));
  for (const c of codes) idOf(c);
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < codes.length; i++) {
    if (codes[i] !== codes[i + 1]) pairs.push([idOf(codes[i]!), idOf(codes[i + 1]!)]);
  }
  return { terms: Uint32Array.from(index.keys()), pairs };
}

/** Index of `code` among the query's terms, or -1; queries are short, so a scan beats a map here. */
function termOf(terms: Uint32Array, code: number): number {
  for (let t = 0; t < terms.length; t++) if (terms[t] === code) return t;
  return -1;
}

/**
 * Share of the query's adjacent word pairs that occur within `window` content words of each other
 * (either order) in the passage whose words are the concatenation of `parts` (heading, then text):
 * heading, then text.
 */
export function codeProximity(query: CodedQuery, parts: readonly Uint32Array[], window = 3): number {
  const { pairs, terms } = query;
  if (pairs.length === 0) return 0;
  const positions: number[][] = Array.from({ length: terms.length }, () => []);
  let position = 0;
  for (const codes of parts) {
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i]!;
      if (!isContent(c)) continue;
      const t = termOf(terms, c);
      if (t >= 0) positions[t]!.push(position);
      position++;
    }
  }
  let near = 0;
  for (const [a, b] of pairs) {
    const pa = positions[a]!;
    const pb = positions[b]!;
    if (pa.length === 0 || pb.length === 0) continue;
    if (pa.some((x) => pb.some((y) => Math.abs(x - y) <= window))) near++;
  }
  return near / pairs.length;
}

/** Share of the query's distinct content words that occur anywhere in the passage's `parts`. */
export function codeCoverage(query: CodedQuery, parts: readonly Uint32Array[]): number {
  if (query.terms.length === 0) return 0;
  const seen = new Uint8Array(query.terms.length);
  let found = 0;
  for (const codes of parts) {
    for (let i = 0; i < codes.length; i++) {
      const t = termOf(query.terms, codes[i]!);
      if (t >= 0 && !seen[t]) {
        seen[t] = 1;
        found++;
      }
    }
  }
  return found / query.terms.length;
}

/**
 * Hashes of the passage's word 4-grams, sorted. Words are compared by code, so passages that differ
 * only in spacing, punctuation, case or a word's inflection share their shingles.
 */
function shingles(codes: Uint32Array): Uint32Array {
  const n = Math.max(1, codes.length - 3);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    let h = 0;
    for (let k = i; k < Math.min(codes.length, i + 4); k++) h = (Math.imul(h, 31) + codes[k]!) >>> 0;
    out[i] = h;
  }
  return out.sort();
}

function jaccard(a: Uint32Array, b: Uint32Array): number {
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      inter++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return inter / (a.length + b.length - inter);
}

/** Near-duplicate detection over passages seen so far: word 4-grams overlapping by `threshold` (Jaccard). */
export class DuplicateFilter {
  private readonly kept: Uint32Array[] = [];
  constructor(private readonly threshold = 0.9) {}

  /** True (and remembered) when the passage with these codes is not a near-duplicate of an earlier accepted one. */
  accept(codes: Uint32Array): boolean {
    const sh = shingles(codes);
    const t = this.threshold;
    // Sets this different in size cannot reach the threshold: skip the comparison.
    const dup = this.kept.some(
      (k) => Math.min(sh.length, k.length) >= t * Math.max(sh.length, k.length) && jaccard(sh, k) >= t,
    );
    if (!dup) this.kept.push(sh);
    return !dup;
  }
}

/** Keeps the first of passages whose word 4-grams overlap by at least `threshold` (Jaccard). */
export function withoutDuplicates<T>(
  items: T[],
  textOf: (item: T) => string,
  threshold = 0.9,
  language: Language = ENGLISH,
): T[] {
  const filter = new DuplicateFilter(threshold);
  return items.filter((item) => filter.accept(wordCodes(textOf(item), language)));
}
