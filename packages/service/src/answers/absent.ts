import type { CountedTerm, Lexicon } from '../domain/ports.js';
import type { SearchHit } from '../domain/types.js';
import { ENGLISH, type Language, languageFor } from '../text/language.js';
import { foldAccents, withinEdits } from '../text/spelling.js';

// The nouns-only rule has an English lexicon only (WordNet): its words are read as English.
const words = (text: string, language: Language = ENGLISH) => language.tokens(text).map((t) => t.word);
const stem = (word: string, language: Language = ENGLISH) => language.term(word);
const isStopWord = (word: string, language: Language = ENGLISH) => language.isStopWord(word);

/**
 * Telling when a question asks about something the workspace does not hold. BM25 finds passages for
 * the question's other words ("set up", "tunnel", "port", "web console"); quoting them would answer
 * another question. Two signs, both about words of the question:
 *
 * - a word that is no English word (a name: "WireGuard", "tmux", "FAT32") that no retrieved passage
 *   uses;
 * - in a large workspace, the name of a thing (a word English has only as a noun: "cockpit",
 *   "rugby", "headset") that no passage of the whole workspace uses, looked up in the index.
 *
 * The second sign needs a large workspace: a handbook's hundreds of pages use most words of their
 * subject, so a thing they never name is not their subject, but three memos about the coffee machine
 * may well never say "coffee maker". Verbs and adjectives never count: people ask "how often", "how
 * do I clean" in words no document needs. docs/decisions/0009 has what this changed.
 */

/** Passages from which a workspace counts as large enough for a missing noun to mean something. */
export const LARGE_WORKSPACE_PASSAGES = 500;

/**
 * Names of things in the question that no retrieved passage uses, nor a spelling of them one edit
 * away ("dorm", "dorms"): to be looked up in the workspace. Short words are left out: three letters
 * are as often an abbreviation or part of a phrase ("vis-à-vis") as a word.
 */
export function wordsToLookUp(question: string, hits: SearchHit[], lexicon: Lexicon): string[] {
  const vocabulary = [...new Set(hits.flatMap((h) => words(h.text).map(foldAccents)))];
  const present = new Set(vocabulary.map((v) => stem(v)));
  const out = new Set<string>();
  for (const raw of words(question).map(foldAccents)) {
    const w = raw.replace(/['’]s$/, '');
    if (w.length < 4 || /[\d'’]/.test(w) || !lexicon.isNounOnly(w)) continue;
    const base = stem(w);
    if (isStopWord(w) || isStopWord(base) || present.has(base)) continue;
    if (!vocabulary.some((v) => withinEdits(w, v, 1))) out.add(w);
  }
  return [...out];
}

/**
 * What a word to look up is counted by: its English term, and the word as typed for a table made
 * before languages, which stems its queries itself.
 */
export const countedTermOf = (word: string): CountedTerm => ({ term: stem(word), text: word });

/**
 * Which of `candidates` no passage of the workspace holds, from the rows holding each (`held`, in
 * their order, counted by `countedTermOf`); none in a workspace of fewer than LARGE_WORKSPACE_PASSAGES
 * `rows`.
 */
export function wordsAbsentFromWorkspace(rows: number, candidates: string[], held: number[]): Set<string> {
  if (rows < LARGE_WORKSPACE_PASSAGES) return new Set();
  return new Set(candidates.filter((_, i) => held[i] === 0));
}

/**
 * Whether the question names something absent: a word of `absentFromWorkspace`, or a word
 * that is no word of the question's language (its `lexicon`) and that no passage uses. A name typed
 * without its accents passes, and so do a misspelt word one or two edits from a word of the passages
 * ("throguh", "Caucasas") and two words of the passages typed as one ("feedsentirely"): on SQuAD's
 * questions these declined answers the passages held. `heldByWorkspace`: a word the workspace holds
 * elsewhere passes too, for lexicons with gaps (the French list lacks "télécharger").
 */
export function asksAboutSomethingAbsent(
  question: string,
  hits: SearchHit[],
  lexicon: Lexicon,
  absentFromWorkspace: ReadonlySet<string> = new Set(),
  language: Language = ENGLISH,
  heldByWorkspace?: (word: string) => boolean,
): boolean {
  let vocabulary: string[] | undefined;
  let present: Set<string> | undefined;
  for (const raw of words(question, language).map(foldAccents)) {
    const w = raw.replace(/['’]s$/, '');
    if (absentFromWorkspace.has(w)) return true;
    // Numbers are not names; a name may hold digits ("FAT32", "ext4").
    if (w.length < 3 || isStopWord(w, language) || /^\d/.test(w) || lexicon.isWord(w)) continue;
    if (!present) {
      vocabulary = [...new Set(hits.flatMap((h) => words(h.text, language).map(foldAccents)))];
      present = new Set(vocabulary.map((v) => stem(v, language)));
    }
    const base = stem(w, language);
    if (present.has(base)) continue;
    const edits = w.length >= 8 ? 2 : w.length >= 4 ? 1 : 0;
    if (
      edits > 0 &&
      vocabulary!.some((v) => withinEdits(w, v, edits) || withinEdits(base, stem(v, language), edits))
    )
      continue;
    if (twoWords(w, lexicon, present, language)) continue;
    if (heldByWorkspace?.(w)) continue;
    return true;
  }
  return false;
}

/**
 * "feedsentirely": two English words typed without the space between them, one of them in the
 * passages ("feeds exclusively on salps"). "WireGuard" is "wire" and "guard" too, but a manual
 * about tunnels uses neither.
 */
function twoWords(w: string, lexicon: Lexicon, present: Set<string>, language: Language): boolean {
  for (let i = 3; i <= w.length - 3; i++) {
    const [a, b] = [w.slice(0, i), w.slice(i)];
    if (
      lexicon.isWord(a) &&
      lexicon.isWord(b) &&
      (present.has(stem(a, language)) || present.has(stem(b, language)))
    )
      return true;
  }
  return false;
}

/** Letters of any script but Latin: a question in such a language holds a few of them. */
const OTHER_SCRIPT_LETTER = /[^\P{L}\p{Script=Latin}]/gu;
const LATIN_WORD = /^[\p{Script=Latin}][\p{Script=Latin}\d]*$/u;

/**
 * Whether a question written in another script than Latin (Chinese, Japanese, Russian…) names in
 * Latin letters something neither the retrieved passages nor the workspace use: there such a word is
 * a name ("nginx", "swappiness", "needrestart") whatever dictionary the language has, so the English
 * rule above needs no lexicon to apply. A spelling one edit away from a word of the passages passes,
 * and so does a name the workspace holds outside the passages ("NetworkManager", "sed": the question
 * may be asked in other words than the passage that answers it).
 */
export function namesSomethingAbsent(
  question: string,
  hits: SearchHit[],
  heldByWorkspace: (name: string) => boolean,
  language: Language,
): boolean {
  // An English question quoting a Greek word is no question written in Greek.
  if (language.latinScript || (question.match(OTHER_SCRIPT_LETTER)?.length ?? 0) < 3) return false;
  const names = words(question, language)
    .map(foldAccents)
    .filter((w) => w.length >= 3 && LATIN_WORD.test(w));
  if (names.length === 0) return false;
  const vocabulary = new Set(
    hits.flatMap((h) => words(h.text, languageFor(h.language ?? 'en')).map(foldAccents)),
  );
  return names.some(
    (w) =>
      !vocabulary.has(w) &&
      (w.length < 5 || ![...vocabulary].some((v) => withinEdits(w, v, 1))) &&
      !heldByWorkspace(w),
  );
}
