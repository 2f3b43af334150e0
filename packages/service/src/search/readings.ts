import type { DocumentScope, IndexHit, SearchIndex } from '../domain/ports.js';
import type { CompoundSplitter } from '../text/compounds.js';
import { ENGLISH, type Language, languageFor } from '../text/language.js';
import { compoundExpansions, expandQuery } from './expansion.js';

/**
 * Reading a query in the workspace's languages: each language's passages were indexed with its own
 * terms, so the query is read (and searched) in each of them.
 */

/**
 * The languages a query is read in: the question's own and every language the workspace's documents
 * were indexed in. Each reading gives the terms that language's documents were indexed with; one
 * full-text query over all of them ranks every passage by its own language's terms.
 */
export function readingsOf(question: Language, workspaceLanguages: readonly string[]): Language[] {
  const out = new Map<string, Language>([[question.code, question]]);
  for (const code of workspaceLanguages) if (!out.has(code)) out.set(code, languageFor(code));
  // A workspace indexed before languages were recorded holds English rows.
  if (workspaceLanguages.length === 0) out.set('en', ENGLISH);
  return [...out.values()];
}

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
 * question's), merged by score. `split` splits the question's compounds (its own language's).
 */
export async function lexicalCandidates(
  index: SearchIndex,
  req: { workspaceId: string; q: string },
  readings: Language[],
  limit: number,
  scope: DocumentScope,
  split?: CompoundSplitter,
): Promise<IndexHit[]> {
  const single = readings.length === 1;
  const own = new Set(readings[0]!.indexTerms(req.q));
  const lists = await Promise.all(
    readings.map(async (language, i) => {
      const terms = language.indexTerms(req.q).filter((t) => i === 0 || own.has(t));
      if (terms.length === 0) return [];
      const hits = await index.search(req.workspaceId, {
        text: req.q,
        terms: terms.join(' '),
        limit,
        ...scope,
        expansions:
          i === 0 ? [...expandQuery(req.q, language), ...compoundExpansions(req.q, language, split)] : [],
        language: single ? undefined : language.code,
      });
      const weight = i === 0 ? 1 : OTHER_READING_WEIGHT;
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
