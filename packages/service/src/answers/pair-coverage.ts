import type { Language } from '../text/language.js';
import type { Unit } from './units.js';

/**
 * How much of a Japanese question a quote covers (extractive.ts). Japanese is compared in overlapping
 * pairs of characters (text/tokens.ts), so a word weighed by its length: "ネットワークインターフェース"
 * is 13 terms and "管理" one, and any sentence naming the long katakana word won whatever else the
 * question asked. The pairs of one word of the question (a run of pairs, each starting one character
 * after the one before) count together as one word, by the share of them a quote holds, and each
 * word is weighted by its rarity among the passages' sentences as the other languages' terms are.
 *
 * Chinese is compared by dictionary words, and its question and sentences are segmented apart at
 * times ("删不掉" against "删除"); counting a question word as held when a sentence writes it inside a
 * longer word, or in part by its characters, chose no more answers on the tune questions (33 to 36
 * of 57 against 36) and is not done (docs/decisions/0025-chinese-and-japanese-sentences.md).
 */

/** What a quote covers of the question: its words' weight that the quote holds, over their total. */
export type CoverageOf = (terms: ReadonlySet<string>) => number;

/**
 * The coverage function of a Japanese passage language for a question's terms, or undefined for
 * other languages (and for questions with no terms), which compare terms one by one.
 */
export function pairCoverage(
  question: string,
  language: Language,
  terms: readonly string[],
  units: readonly Unit[],
): CoverageOf | undefined {
  if (terms.length === 0 || language.code !== 'ja') return undefined;
  const words = pairWords(question, language, new Set(terms));
  const weights = words.map((w) => {
    let df = 0;
    for (const u of units) df += held(w, u.terms);
    return Math.log(1 + units.length / (df || 0.5));
  });
  const total = weights.reduce((a, b) => a + b, 0);
  return (quoteTerms) => {
    let sum = 0;
    words.forEach((w, i) => {
      sum += weights[i]! * held(w, quoteTerms);
    });
    return total > 0 ? sum / total : 0;
  };
}

/** A word of the question: its terms (one, or a Japanese word's pairs). */
type Word = string[];

/** The share of a word's terms a quote holds, from 0 to 1. */
const held = (word: Word, terms: ReadonlySet<string>) =>
  word.filter((p) => terms.has(p)).length / word.length;

/**
 * The question's terms grouped into its words: Japanese pairs that overlap (each starting one
 * character after the one before) are one word; any other term is a word of its own.
 */
function pairWords(question: string, language: Language, terms: ReadonlySet<string>): Word[] {
  const asked = question.replace(language.questions.asking, ' ');
  const words: Word[] = [];
  const seen = new Set<string>();
  let last: { end: number; word: Word } | undefined;
  for (const token of language.tokens(asked)) {
    const term = language.term(token.word);
    if (!terms.has(term)) {
      last = undefined;
      continue;
    }
    const pair = token.end - token.start === 2 && last && token.start === last.end - 1;
    if (pair && last) {
      if (!last.word.includes(term)) last.word.push(term);
      last.end = token.end;
      continue;
    }
    const word: Word = [term];
    last = { end: token.end, word };
    words.push(word);
  }
  // The same word asked twice counts once, as a term does.
  return words.filter((w) => {
    const key = w.join('\u0000');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
