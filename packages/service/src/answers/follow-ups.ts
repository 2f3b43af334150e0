import type { Question } from '../search/question.js';
import type { Language } from '../text/language.js';
import type { Unit } from './units.js';

/**
 * What the extractive answerer makes of a follow-up's borrowed words (search/follow-up.ts,
 * docs/decisions/0026-follow-up-questions.md). They say what the question is about, not what it
 * asks: a quote is still scored by the question's own words, and the borrowed ones only break ties,
 * keep a quote from running on into another subject, and keep out companions about something else.
 * For a question that stands alone each of these is neutral, so its answer is as it was.
 */

/** Whether a sentence is about a follow-up: it holds one of its own terms or of those it borrowed. */
export function aboutFollowUp(question: Question, language: Language): (u: Unit) => boolean {
  if (!question.borrowed) return () => true;
  const terms = [...question.terms(language), ...question.borrowedTerms(language)];
  return (u) => terms.some((t) => u.terms.has(t));
}

/** The share of a follow-up's borrowed terms (in `language`) that a quote or passage holds; 0 when it borrowed none. */
export function borrowedShare(
  question: Question,
  language: Language,
): (terms: ReadonlySet<string>) => number {
  const borrowed = question.borrowedTerms(language);
  if (borrowed.length === 0) return () => 0;
  return (terms) => borrowed.filter((t) => terms.has(t)).length / borrowed.length;
}
