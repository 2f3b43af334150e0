import type { CompoundSplitter } from '../text/compounds.js';
import type { Language } from '../text/language.js';

/** Particles of English phrasal verbs: "log in", "set up", "shut down" are written "login", "setup", "shutdown". */
const PARTICLES = new Set(['in', 'up', 'out', 'down', 'off', 'on', 'over', 'back']);

/**
 * Terms (as the index stores them) a passage may use for what the query says in other words; they
 * count as the query's own. (A smaller weight for them would need a boosted clause, and LanceDB 0.37
 * ignores the boost of a match query in a boolean one: search-index.test.ts.)
 *
 * Compounds: people write "time zone", "file name", "user name", "set up", "logging in" where
 * documentation writes "timezone", "filename", "username", "setup", "login", and German readers ask
 * about "Paket Verwaltung" where the manual writes "Paketverwaltung" (the other way round is covered
 * already: the tokenizer splits "read-only" and "file-name" into their parts). In languages that
 * join words so, each pair of adjacent query words, the first in its stem form when the second is an
 * English particle, also asks for the two written as one word. Measured against WordNet synonyms and
 * pseudo-relevance feedback, which lost (docs/decisions/0009).
 */
export function expandQuery(q: string, language: Language): string[] {
  if (!language.joinsCompounds) return [];
  const words = language
    .tokens(q)
    .map((t) => t.word)
    .filter((w) => /^\p{L}+$/u.test(w));
  const compounds = new Set<string>();
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i]!, words[i + 1]!];
    if (a.length < 2 || b.length < 2 || language.isStopWord(a)) continue;
    if (language.code === 'en' && PARTICLES.has(b)) compounds.add(language.term(language.term(a) + b));
    else if (!language.isStopWord(b)) compounds.add(language.term(a + b));
  }
  return [...compounds];
}

/**
 * The terms of the parts of the query's compounds ("Druckerwarteschlange" → "druck", "warteschlang"),
 * which the index holds beside every compound it was given: a passage that writes the parts apart
 * ("die Warteschlange des Druckers") matches too. The compound's own term stays in the query.
 */
export function compoundExpansions(
  q: string,
  language: Language,
  split: CompoundSplitter | undefined,
): string[] {
  if (!split) return [];
  const out = new Set<string>();
  for (const { word } of language.tokens(q)) {
    const own = language.indexTerm(word);
    if (own === undefined) continue;
    for (const part of split(word) ?? []) {
      const t = language.indexTerm(part);
      if (t !== undefined && t !== own) out.add(t);
    }
  }
  return [...out];
}
