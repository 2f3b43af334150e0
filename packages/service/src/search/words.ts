import type { Language } from '../text/language.js';

/** Terms of the query's content words (stop words left out, unless the query has nothing else). */
export function queryTerms(q: string, language: Language): Set<string> {
  const terms = language.contentTerms(q);
  return new Set(terms.length ? terms : language.tokens(q).map((t) => language.term(t.word)));
}
