import type { DocumentScope, IndexHit, SearchIndex } from '../domain/ports.js';
import type { Question } from './question.js';

/**
 * Reading a query in the workspace's languages: each language's passages were indexed with its own
 * terms, so the query is read (and searched) in each of them (Question.readings).
 */

/**
 * A reading in another language than the question's counts for this share of its score. It asks
 * only for the terms every reading makes alike (commands, files, names, numbers: "/proc/kcore" is
 * "proc kcore" in any language); the question's other words, read by a language they are not written
 * in, would match that language's passages by accident (a Spanish "archivo" is a rare English word).
 */
export const OTHER_READING_WEIGHT = 0.5;

/**
 * Lexical candidates: the question read in each of the workspace's languages, each reading searched
 * among the passages of its language (one query when the workspace has one language and it is the
 * question's), merged by score. The question's own reading also asks for its expansions (joined
 * words, its compounds' parts).
 */
export async function lexicalCandidates(
  index: SearchIndex,
  workspaceId: string,
  question: Question,
  limit: number,
  scope: DocumentScope,
): Promise<IndexHit[]> {
  const { readings } = question;
  const single = readings.length === 1;
  const own = new Set(question.indexTerms(readings[0]!));
  const lists = await Promise.all(
    readings.map(async (language, i) => {
      // A reading the question was translated into is the question in that language: all of its terms.
      const whole = i === 0 || question.translations.has(language.code);
      const terms = question.indexTerms(language).filter((t) => whole || own.has(t));
      if (terms.length === 0) return [];
      const hits = await index.search(workspaceId, {
        text: question.textIn(language),
        terms: terms.join(' '),
        limit,
        ...scope,
        expansions: i === 0 ? [...question.expansions()] : [],
        language: single ? undefined : language.code,
      });
      const weight = whole ? 1 : OTHER_READING_WEIGHT;
      return weight === 1 ? hits : hits.map((h) => ({ row: h.row, score: h.score * weight }));
    }),
  );
  return single
    ? lists[0]!
    : lists
        .flat()
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
}
