import { ENGLISH, type Language } from '../text/language.js';
import { stemCode } from './word-codes.js';

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
 * Occurrences of the query's terms in the passage, in order: [start, end, the term's code]. With the
 * passage's stored word codes (one per token of the passage's language) no word is stemmed again.
 */
function queryWordsIn(
  passage: string,
  queryTermSet: ReadonlySet<string>,
  codes: Uint32Array | undefined,
  language: Language,
): [number, number, number][] {
  const hits: [number, number, number][] = [];
  if (codes) {
    const bounds = language.tokenBounds(passage);
    if (codes.length * 2 === bounds.length) {
      const wanted = new Set([...queryTermSet].map(stemCode));
      for (let k = 0; k < codes.length; k++) {
        if (wanted.has(codes[k]!)) hits.push([bounds[2 * k]!, bounds[2 * k + 1]!, codes[k]!]);
      }
      return hits;
    }
  }
  // Codes of another text or tokenizer (rows indexed before this one): the words themselves.
  for (const t of language.tokens(passage)) {
    if (language.isStopWord(t.word)) continue;
    const term = language.term(t.word);
    if (queryTermSet.has(term)) hits.push([t.start, t.end, stemCode(term)]);
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
  queryTermSet: ReadonlySet<string>,
  options: { maxChars?: number; codes?: Uint32Array | undefined; language?: Language | undefined } = {},
): Snippet {
  const maxChars = options.maxChars ?? 280;
  const language = options.language ?? ENGLISH;
  const hits = queryWordsIn(passage, queryTermSet, options.codes, language);
  const spans = language.sentenceSpans(passage);
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
    highlights: mergeOverlapping(hits.filter(([x, y]) => x >= start && y <= end)).map(([x, y]) => ({
      start: x - start,
      end: y - start,
    })),
  };
}

/** Ranges in order with those that overlap joined: a language read in overlapping pairs of characters marks each pair. */
function mergeOverlapping(ranges: [number, number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [a, b] of ranges) {
    const last = out[out.length - 1];
    if (last && a < last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}
