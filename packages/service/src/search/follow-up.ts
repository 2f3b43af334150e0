import type { ChatMessage } from '../domain/ports.js';
import type { Language } from '../text/language.js';

/**
 * Follow-up questions (issue 41, docs/decisions/0026-follow-up-questions.md): the one place that
 * decides whether a question leans on the conversation before it, and what it borrows from it.
 *
 * A question refers back when it points at something named earlier ("How do I enable it?"), carries
 * the earlier question over to a new subject ("And for the printer?"), or has no content word of its
 * own ("Why?"). It then borrows the words of the earlier user turns, the most recent first, for
 * retrieval. Assistant turns lend nothing: an extractive answer is quotes, and its words would bring
 * the previous answer's passages back.
 */

/** Earlier user turns a follow-up borrows from at most: the last, and the ones it leaned on in turn. */
export const TURNS_BORROWED = 3;
/** Characters borrowed from one turn at most: a pasted page is not a question's subject. */
export const BORROWED_CHARS = 500;

/** Whether `text`, asked in `language`, leans on the turns before it. */
export function isFollowUp(text: string, language: Language): boolean {
  const rules = language.references;
  const trimmed = text.trim();
  if (rules.pointsBack.test(trimmed) || rules.followsOn.test(trimmed)) return true;
  return language.questionTerms(trimmed).length === 0;
}

/**
 * The text a question borrows from the conversation: the earlier user turns' text, the most recent
 * first, each one taken only while the turn after it referred back ("What does the firewall block?",
 * "How do I enable it?", "And disable it?" borrows from both earlier questions). Empty when the
 * question stands alone, or nothing came before it.
 */
export function borrowedText(
  text: string,
  language: Language,
  history: readonly ChatMessage[] | undefined,
): string {
  if (!history?.length || !isFollowUp(text, language)) return '';
  const turns = history
    .filter((m) => m.role === 'user' && m.content.trim())
    .map((m) => m.content.trim().slice(0, BORROWED_CHARS))
    .reverse();
  const borrowed: string[] = [];
  for (const turn of turns) {
    if (borrowed.length >= TURNS_BORROWED) break;
    borrowed.push(turn);
    if (!isFollowUp(turn, language)) break;
  }
  return borrowed.join('\n');
}
