import { STOP_WORDS, stem } from '../text/english.js';
import { WORD } from './words.js';

export interface Expansion {
  text: string;
  weight: number;
}

/** Particles of phrasal verbs: "log in", "set up", "shut down" are written "login", "setup", "shutdown". */
const PARTICLES = new Set(['in', 'up', 'out', 'down', 'off', 'on', 'over', 'back']);

/**
 * Words a passage may use for what the query says in other words, each with the weight its matches
 * count for beside the query's own words.
 *
 * Compounds: people write "time zone", "file name", "user name", "set up", "logging in" where
 * documentation writes "timezone", "filename", "username", "setup", "login" (the other way round is
 * covered already: the index splits "read-only" and "file-name" into their parts). Each pair of
 * adjacent query words, the first in its stem form when the second is a particle, also asks for the
 * two written as one word. Measured against WordNet synonyms and pseudo-relevance feedback, which lost
 * (docs/decisions/0009).
 */
export function expandQuery(q: string): Expansion[] {
  const words = (q.toLowerCase().match(WORD) ?? []).filter((w) => /^\p{L}+$/u.test(w));
  const compounds = new Set<string>();
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i]!, words[i + 1]!];
    if (a.length < 2 || b.length < 2 || STOP_WORDS.has(a)) continue;
    if (PARTICLES.has(b)) compounds.add(stem(a) + b);
    else if (!STOP_WORDS.has(b)) compounds.add(a + b);
  }
  return compounds.size ? [{ text: [...compounds].join(' '), weight: 1 }] : [];
}
