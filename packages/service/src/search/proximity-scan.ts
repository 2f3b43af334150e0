import { STOP_WORDS, stem } from '../text/english.js';

/**
 * The proximity signal of passages.ts (`proximity`) computed without building the passage's stem
 * sequence. Rescoring runs it on every lexical candidate (60 per search), and the profile showed the
 * regex match, the per-word strings and the stem lookups of `stemSequence` as the search path's
 * largest cost. Here one pass over the lowercased passage finds the words by character code, looks
 * each one up by a hash of its characters (a new string is made only for a word never seen before),
 * and records positions only for the words that stem to a term of the query's pairs. Words, stop
 * words and stems are exactly those of passages.ts (same word pattern, same STOP_WORDS, same stem);
 * test/unit/proximity-scan.test.ts compares the two on varied text.
 */

// Every word seen, shared by all searches, in flat arrays (one Map lookup and a few array reads per
// word: objects per word cost more in cache misses than the rest of the scan). Bounded: all cleared
// when full, like passages.ts' stem cache.
const MAX_WORDS = 1 << 17;
const MAX_CHARS = 1 << 21;
/** Hash of a word's characters → the newest word with that hash; `nextWord` chains the others. */
const firstWord = new Map<number, number>();
const nextWord = new Int32Array(MAX_WORDS);
/** The word's characters are `chars[charStart[w] … charStart[w] + charLength[w]]`. */
const chars = new Uint16Array(MAX_CHARS);
const charStart = new Int32Array(MAX_WORDS);
const charLength = new Int32Array(MAX_WORDS);
/** The word's stem (an index into `stems`), or -1 for a stop word. */
const stemOf = new Int32Array(MAX_WORDS);
const stems: string[] = [];
const stemIds = new Map<string, number>();
/** Per stem: the query (`QueryPairs.stamp`) `termOf` was looked up for, and its term index there (-1: none). */
const stampOf = new Float64Array(MAX_WORDS);
const termOf = new Int32Array(MAX_WORDS);
let words = 0;
let charsUsed = 0;

function clearWords(): void {
  firstWord.clear();
  stemIds.clear();
  stems.length = 0;
  stampOf.fill(0);
  words = 0;
  charsUsed = 0;
}

const LETTER = /^\p{L}$/u;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const APOSTROPHE = 0x27;
const RIGHT_QUOTE = 0x2019;

// ASCII classes: 2 letter, 1 digit, 0 neither.
const ASCII = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) ASCII[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) ASCII[c] = 2;
for (let c = 0x61; c <= 0x7a; c++) ASCII[c] = 2;

/** Width in UTF-16 units of the non-ASCII code point at `i` if it is a letter (or digit, unless `lettersOnly`), else 0. */
function wideWordChar(s: string, i: number, lettersOnly: boolean): number {
  const ch = String.fromCodePoint(s.codePointAt(i)!);
  return (lettersOnly ? LETTER : LETTER_OR_DIGIT).test(ch) ? ch.length : 0;
}

/** Width of the word character (letter or digit) at `i`, 0 if there is none. */
function wordChar(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c < 0x80 ? (ASCII[c]! > 0 ? 1 : 0) : wideWordChar(s, i, false);
}

/** Width of the letter at `i`, 0 if there is none. */
function letter(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c < 0x80 ? (ASCII[c] === 2 ? 1 : 0) : wideWordChar(s, i, true);
}

/** The word `s[start…end]` (with this hash): its index, added if new. */
function lookup(s: string, start: number, end: number, hash: number): number {
  const length = end - start;
  const first = firstWord.get(hash);
  for (let w = first ?? -1; w >= 0; w = nextWord[w]!) {
    if (charLength[w] !== length) continue;
    const at = charStart[w]!;
    let k = 0;
    while (k < length && chars[at + k] === s.charCodeAt(start + k)) k++;
    if (k === length) return w;
  }
  if (words >= MAX_WORDS || charsUsed + length > MAX_CHARS) {
    clearWords();
    return lookup(s, start, end, hash);
  }
  const w = words++;
  for (let k = 0; k < length; k++) chars[charsUsed + k] = s.charCodeAt(start + k);
  charStart[w] = charsUsed;
  charLength[w] = length;
  charsUsed += length;
  nextWord[w] = first ?? -1;
  firstWord.set(hash, w);
  const word = s.slice(start, end);
  if (STOP_WORDS.has(word)) stemOf[w] = -1;
  else {
    const st = stem(word);
    let id = stemIds.get(st);
    if (id === undefined) {
      id = stems.length;
      stems.push(st);
      stemIds.set(st, id);
    }
    stemOf[w] = id;
  }
  return w;
}

/**
 * Scans the content words of `text` (lowercased, stop words left out) in order: the words of
 * passages.ts' `stemSequence(text)`. Each one's term index in `query` (-1: none) goes into `out` from
 * index `from` on, or, given `stemsOut`, its stem there. Returns the index after the last word.
 * Terms are resolved word by word, so the word table may start over in the middle of a text.
 */
function contentWords(
  text: string,
  out: Int32Array,
  from: number,
  query: QueryPairs | undefined,
  stemsOut?: string[],
): number {
  const s = text.toLowerCase();
  const n = s.length;
  let count = from;
  let i = 0;
  while (i < n) {
    let width = wordChar(s, i);
    if (width === 0) {
      i++;
      continue;
    }
    const start = i;
    let hash = 0x811c9dc5 | 0;
    do {
      hash = Math.imul(hash ^ s.charCodeAt(i), 16777619);
      if (width === 2) hash = Math.imul(hash ^ s.charCodeAt(i + 1), 16777619);
      i += width;
      width = i < n ? wordChar(s, i) : 0;
    } while (width > 0);
    // One optional apostrophe followed by letters ("don't", "o’clock").
    const c = i < n ? s.charCodeAt(i) : 0;
    if ((c === APOSTROPHE || c === RIGHT_QUOTE) && i + 1 < n && letter(s, i + 1) > 0) {
      hash = Math.imul(hash ^ c, 16777619);
      i++;
      for (let w = letter(s, i); w > 0; w = i < n ? letter(s, i) : 0) {
        hash = Math.imul(hash ^ s.charCodeAt(i), 16777619);
        if (w === 2) hash = Math.imul(hash ^ s.charCodeAt(i + 1), 16777619);
        i += w;
      }
    }
    // Small-integer keys keep the map's lookups on its fast path.
    const stemId = stemOf[lookup(s, start, i, hash & 0x3fffffff)]!;
    if (stemId < 0) continue;
    if (stemsOut) stemsOut.push(stems[stemId]!);
    else if (query) {
      if (stampOf[stemId] !== query.stamp) {
        stampOf[stemId] = query.stamp;
        termOf[stemId] = query.termIndex.get(stems[stemId]!) ?? -1;
      }
      // A word needs at least one character: `out` has room for as many as the text has characters.
      out[count] = termOf[stemId]!;
    }
    count++;
  }
  return count;
}

/** The stems `scanProximity` sees for `text`, for tests: the same list as `stemSequence(text)`. */
export function contentStems(text: string): string[] {
  const out: string[] = [];
  contentWords(text, new Int32Array(0), 0, undefined, out);
  return out;
}

// Reused by every scan (scans are synchronous): holds the words of the passage being scanned.
let scratch = new Int32Array(4096);
let stamps = 0;

/**
 * The query's adjacent content-word pairs (distinct words only), prepared once per search for
 * `scanProximity`. `queryStemsInOrder` is `stemSequence(q)`.
 */
export interface QueryPairs {
  pairs: [number, number][];
  /** Tells this query's term look-ups, remembered on the words, from other queries'. */
  stamp: number;
  /** Stem → its index among the stems the pairs use. */
  termIndex: Map<string, number>;
}

export function queryPairs(queryStemsInOrder: string[]): QueryPairs {
  const termIndex = new Map<string, number>();
  const idOf = (t: string) => {
    let id = termIndex.get(t);
    if (id === undefined) {
      id = termIndex.size;
      termIndex.set(t, id);
    }
    return id;
  };
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < queryStemsInOrder.length; i++) {
    const a = queryStemsInOrder[i]!;
    const b = queryStemsInOrder[i + 1]!;
    if (a !== b) pairs.push([idOf(a), idOf(b)]);
  }
  stamps++;
  return { pairs, termIndex, stamp: stamps };
}

/**
 * Share of the query's adjacent word pairs that occur within `window` content words of each other
 * (either order) in the passage: equal to passages.ts' `proximity(queryStemsInOrder, texts.join('\n'))`.
 * The texts are scanned in turn as one passage (a heading and its text without joining them).
 */
export function scanProximity(query: QueryPairs, texts: readonly string[], window = 3): number {
  const { pairs, termIndex } = query;
  if (pairs.length === 0) return 0;
  let total = 0;
  for (const text of texts) total += text.length;
  if (scratch.length < total) scratch = new Int32Array(total);
  let n = 0;
  for (const text of texts) n = contentWords(text, scratch, n, query);
  const positions: number[][] = Array.from({ length: termIndex.size }, () => []);
  for (let i = 0; i < n; i++) {
    const term = scratch[i]!;
    if (term >= 0) positions[term]!.push(i);
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
