import { contentTerms, STOP_WORDS, stem } from '../text/english.js';
import { sentenceSpans } from '../text/sentences.js';

export interface Snippet {
  /** A short excerpt of the passage around the query's words. */
  text: string;
  /** Offsets of the excerpt in the document's extracted text. */
  charStart: number;
  charEnd: number;
  /** The query's words inside the excerpt, as offsets into `text`. */
  highlights: { start: number; end: number }[];
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

// Search rescoring stems the same words over and over: remember them (bounded, cleared when full).
const stems = new Map<string, string>();
function cachedStem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size > 100_000) stems.clear();
    s = stem(word);
    stems.set(word, s);
  }
  return s;
}

/** Stems of the query's content words (stop words left out, unless the query has nothing else). */
export function queryStems(q: string): Set<string> {
  const terms = contentTerms(q);
  return new Set(terms.length ? terms : (q.toLowerCase().match(WORD) ?? []).map(stem));
}

function _matches(word: string, stems: Set<string>): boolean {
  const w = word.toLowerCase();
  return !STOP_WORDS.has(w) && stems.has(stem(w));
}

/**
 * The best excerpt of a passage for a query: the shortest run of whole sentences (at most `maxChars`)
 * holding the most distinct query words, with each occurrence of a query word marked.
 */
export function snippetOf(
  passage: string,
  passageStart: number,
  queryStemSet: Set<string>,
  maxChars = 280,
): Snippet {
  // Words of the passage that are query words, found once: [start, end, stem].
  const hits: [number, number, string][] = [];
  for (const m of passage.matchAll(WORD)) {
    const w = m[0].toLowerCase();
    if (STOP_WORDS.has(w)) continue;
    const s = cachedStem(w);
    if (queryStemSet.has(s)) hits.push([m.index, m.index + m[0].length, s]);
  }
  const spans = sentenceSpans(passage);
  const distinct = (a: number, b: number) =>
    new Set(hits.filter(([x, y]) => x >= a && y <= b).map((h) => h[2])).size;
  // The shortest run of whole sentences within the budget that holds the most distinct query words.
  let best: [number, number] = spans[0] ?? [0, passage.length];
  let bestScore = -1;
  for (let i = 0; i < spans.length && hits.length > 0; i++) {
    for (let j = i; j < spans.length && (j === i || spans[j]![1] - spans[i]![0] <= maxChars); j++) {
      const score = distinct(spans[i]![0], spans[j]![1]);
      const shorter = spans[j]![1] - spans[i]![0] < best[1] - best[0];
      if (score > bestScore || (score === bestScore && shorter)) {
        bestScore = score;
        best = [spans[i]![0], spans[j]![1]];
      }
    }
  }
  let [start, end] = best;
  // A single sentence longer than the budget: start the excerpt a little before its first query word.
  if (end - start > maxChars) {
    const first = hits.find(([x]) => x >= start)?.[0] ?? start;
    let from = Math.max(start, first - Math.floor(maxChars / 3));
    const space = passage.lastIndexOf(' ', from);
    if (space > start && from - space < 20) from = space + 1;
    let to = Math.min(end, from + maxChars);
    const cut = passage.lastIndexOf(' ', to);
    if (to < end && cut > from + maxChars / 2) to = cut;
    [start, end] = [from, to];
  }
  return {
    text: passage.slice(start, end),
    charStart: passageStart + start,
    charEnd: passageStart + end,
    highlights: hits
      .filter(([x, y]) => x >= start && y <= end)
      .map(([x, y]) => ({ start: x - start, end: y - start })),
  };
}

/** Stems of a text's content words in order (stop words dropped, so "effect of X" ≈ "X effect"'s neighbours). */
export function stemSequence(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w)).map(cachedStem);
}

/**
 * Share of the query's adjacent word pairs that also occur close together (within `window` content
 * words, in either order) in the passage: a phrase and proximity signal that bag-of-words BM25 lacks.
 */
export function proximity(queryStemsInOrder: string[], passage: string, window = 3): number {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < queryStemsInOrder.length; i++) {
    const a = queryStemsInOrder[i]!;
    const b = queryStemsInOrder[i + 1]!;
    if (a !== b) pairs.push([a, b]);
  }
  if (pairs.length === 0) return 0;
  const seq = stemSequence(passage);
  const positions = new Map<string, number[]>();
  seq.forEach((t, i) => {
    const list = positions.get(t);
    if (list) list.push(i);
    else positions.set(t, [i]);
  });
  let near = 0;
  for (const [a, b] of pairs) {
    const pa = positions.get(a);
    const pb = positions.get(b);
    if (!pa || !pb) continue;
    if (pa.some((x) => pb.some((y) => Math.abs(x - y) <= window))) near++;
  }
  return near / pairs.length;
}

/** Hashes of a passage's word 4-grams, sorted: duplicates that differ only in spacing or punctuation share them. */
function shingles(text: string): Uint32Array {
  const words = (text.toLowerCase().match(WORD) ?? []).map((w) => {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    return h >>> 0;
  });
  const n = Math.max(1, words.length - 3);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    let h = 0;
    for (let k = i; k < Math.min(words.length, i + 4); k++) h = (Math.imul(h, 31) + words[k]!) >>> 0;
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

  /** True (and remembered) when `text` is not a near-duplicate of an earlier accepted text. */
  accept(text: string): boolean {
    const sh = shingles(text);
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
export function withoutDuplicates<T>(items: T[], textOf: (item: T) => string, threshold = 0.9): T[] {
  const filter = new DuplicateFilter(threshold);
  return items.filter((item) => filter.accept(textOf(item)));
}
