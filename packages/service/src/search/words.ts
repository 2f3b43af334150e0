import { contentTerms, STOP_WORDS, stem } from '../text/english.js';

/** A word: letters and digits of any script, with one optional apostrophe and letters ("don't"). */
export const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

// Ranking and snippets stem the same words over and over: remember them (bounded, cleared when full).
const stems = new Map<string, string>();
export function cachedStem(word: string): string {
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

/** Stems of a text's content words in order (stop words dropped, so "effect of X" ≈ "X effect"'s neighbours). */
export function stemSequence(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w)).map(cachedStem);
}
