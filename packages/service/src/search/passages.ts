import { STOP_WORDS } from '../text/english.js';
import { sentenceSpans } from '../text/sentences.js';
import { stemCode } from './word-codes.js';
import { cachedStem, WORD } from './words.js';

export interface Snippet {
  /** A short excerpt of the passage around the query's words. */
  text: string;
  /** Offsets of the excerpt in the document's extracted text. */
  charStart: number;
  charEnd: number;
  /** The query's words inside the excerpt, as offsets into `text`. */
  highlights: { start: number; end: number }[];
}

/**
 * Occurrences of the query's words in the passage, in order: [start, end, the word's stem code]. With
 * the passage's stored word codes (which follow the words of its lowercased text) no word is stemmed;
 * offsets carry over from the lowercased text when lowercasing kept its length, as for almost all text.
 */
function queryWordsIn(
  passage: string,
  queryStemSet: Set<string>,
  codes: Uint32Array | undefined,
): [number, number, number][] {
  const hits: [number, number, number][] = [];
  if (codes) {
    const lower = passage.toLowerCase();
    if (lower.length === passage.length) {
      const wanted = new Set([...queryStemSet].map(stemCode));
      let k = 0;
      for (const m of lower.matchAll(WORD)) {
        if (wanted.has(codes[k++]!)) hits.push([m.index, m.index + m[0].length, codes[k - 1]!]);
      }
      // Codes of another text (never expected): fall back to the words themselves.
      if (k === codes.length) return hits;
      hits.length = 0;
    }
  }
  for (const m of passage.matchAll(WORD)) {
    const w = m[0].toLowerCase();
    if (STOP_WORDS.has(w)) continue;
    const s = cachedStem(w);
    if (queryStemSet.has(s)) hits.push([m.index, m.index + m[0].length, stemCode(s)]);
  }
  return hits;
}

/**
 * The best excerpt of a passage for a query: the shortest run of whole sentences (at most `maxChars`)
 * holding the most distinct query words, with each occurrence of a query word marked.
 */
export function snippetOf(
  passage: string,
  passageStart: number,
  queryStemSet: Set<string>,
  options: { maxChars?: number; codes?: Uint32Array | undefined } = {},
): Snippet {
  const maxChars = options.maxChars ?? 280;
  const hits = queryWordsIn(passage, queryStemSet, options.codes);
  const spans = sentenceSpans(passage);
  // The shortest run of whole sentences within the budget that holds the most distinct query words.
  // Hits are in order and do not overlap, so those within sentences i…j are a run of them: for each i
  // the run grows with j, and its distinct words are counted as it grows.
  let best: [number, number] = spans[0] ?? [0, passage.length];
  let bestScore = -1;
  let lo = 0;
  for (let i = 0; i < spans.length && hits.length > 0; i++) {
    const a = spans[i]![0];
    while (lo < hits.length && hits[lo]![0] < a) lo++;
    const seen = new Set<number>();
    let hi = lo;
    for (let j = i; j < spans.length && (j === i || spans[j]![1] - a <= maxChars); j++) {
      const b = spans[j]![1];
      while (hi < hits.length && hits[hi]![1] <= b) seen.add(hits[hi++]![2]);
      const shorter = b - a < best[1] - best[0];
      if (seen.size > bestScore || (seen.size === bestScore && shorter)) {
        bestScore = seen.size;
        best = [a, b];
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
