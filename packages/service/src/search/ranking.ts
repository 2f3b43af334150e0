import type { IndexHit, IndexRow } from '../domain/ports.js';
import { ENGLISH, type Language, languageFor } from '../text/language.js';
import type { Question } from './question.js';
import { codeCoverage, codeProximity, wordCodes } from './word-codes.js';

/**
 * How search orders its candidates (search.ts asks): rank fusion of the lexical and vector lists,
 * lexical scores rescored by proximity and coverage of the query's words, and a share of each
 * document's other matching passages. Pure functions over hits.
 */

/** Weighted reciprocal-rank fusion of two rankings of chunks. */
export function fuse(lexical: IndexHit[], vector: IndexHit[], vectorWeight: number, k: number): IndexHit[] {
  const byId = new Map<string, IndexHit>();
  const add = (hits: IndexHit[], weight: number) => {
    hits.forEach((h, rank) => {
      const s = weight / (k + rank + 1);
      const seen = byId.get(h.row.id);
      if (seen) seen.score += s;
      else byId.set(h.row.id, { row: h.row, score: s });
    });
  };
  add(lexical, 1 - vectorWeight);
  add(vector, vectorWeight);
  return [...byId.values()].sort((a, b) => b.score - a.score);
}

/**
 * Rescores lexical hits with two signals bag-of-words BM25 lacks: how closely the passage keeps the
 * query's adjacent words together, and how many of the query's distinct words it has at all.
 */
export function rescoreLexical(
  hits: IndexHit[],
  question: Question,
  proximityWeight: number,
  coverageWeight = 0,
): IndexHit[] {
  if ((proximityWeight <= 0 && coverageWeight <= 0) || hits.length === 0) return hits;
  return hits
    .map(lexicalRescorer(question, proximityWeight, coverageWeight))
    .sort((a, b) => b.score - a.score);
}

function lexicalRescorer(
  question: Question,
  proximityWeight: number,
  coverageWeight: number,
): (h: IndexHit) => IndexHit {
  return (h) => {
    // The query read in the row's language, as its codes were.
    const query = question.coded(rowLanguage(h.row));
    const parts = [headingCodes(h.row.heading, rowLanguage(h.row)), codesOf(h.row)];
    const coverage = coverageWeight > 0 ? codeCoverage(query, parts) : 0;
    const near = proximityWeight > 0 ? codeProximity(query, parts) : 0;
    const factor = 1 + proximityWeight * near + coverageWeight * coverage;
    return { row: h.row, score: h.score * factor };
  };
}

/**
 * The row's word codes: stored by the index, or (rows indexed before codes existed) computed from
 * its text and kept on the row, which belongs to this search alone, for the next signal that needs them.
 */
export function codesOf(row: IndexRow): Uint32Array {
  row.wordCodes ??= wordCodes(row.text, rowLanguage(row));
  return row.wordCodes;
}

/** The language a row was indexed in; rows indexed before languages were read as English. */
export const rowLanguage = (row: IndexRow): Language => (row.language ? languageFor(row.language) : ENGLISH);

// Headings are short and shared by a document's chunks: coded once per process (bounded).
const headings = new Map<string, Uint32Array>();
function headingCodes(heading: string, language: Language): Uint32Array {
  const key = `${language.code}\u0000${heading}`;
  let codes = headings.get(key);
  if (!codes) {
    if (headings.size >= 10_000) headings.clear();
    codes = wordCodes(heading, language);
    headings.set(key, codes);
  }
  return codes;
}

/**
 * The hits of `rescoreLexical(hits, …)` in the same order (ties in input order, as its stable sort
 * leaves them), rescoring only as many as the reader takes. Rescoring multiplies a score by at most
 * `1 + proximityWeight + coverageWeight`, so the best rescored hit not yet handed out comes next as
 * soon as it reaches that multiple of every score not yet rescored. A page of ten rarely needs all
 * sixty candidates rescored (cheap with stored word codes, costly for rows that must be coded).
 */
export function* rescoredInOrder(
  hits: IndexHit[],
  question: Question,
  proximityWeight: number,
  coverageWeight = 0,
): Generator<IndexHit> {
  // The bound needs scores that only grow when multiplied; anything else is rescored at once.
  if (proximityWeight <= 0 && coverageWeight <= 0) return yield* hits;
  if (hits.some((h) => !(h.score >= 0)))
    return yield* rescoreLexical(hits, question, proximityWeight, coverageWeight);
  const rescore = lexicalRescorer(question, proximityWeight, coverageWeight);
  const maxFactor = 1 + proximityWeight * 1 + coverageWeight * 1;
  // bound[i]: the highest rescored score any of hits[i…] can reach.
  const bound = new Float64Array(hits.length + 1);
  bound[hits.length] = -1;
  for (let i = hits.length - 1; i >= 0; i--) bound[i] = Math.max(bound[i + 1]!, hits[i]!.score * maxFactor);
  // Rescored and not yet handed out, with their input positions.
  const ready: { hit: IndexHit; at: number }[] = [];
  let next = 0;
  while (next < hits.length || ready.length > 0) {
    let best = -1;
    for (let i = 0; i < ready.length; i++) {
      const r = ready[i]!;
      if (best < 0 || r.hit.score > ready[best]!.hit.score) best = i;
      else if (r.hit.score === ready[best]!.hit.score && r.at < ready[best]!.at) best = i;
    }
    // On a tie with a hit not yet rescored, the earlier input (this one) comes first.
    if (best >= 0 && ready[best]!.hit.score >= bound[next]!) {
      yield ready.splice(best, 1)[0]!.hit;
      continue;
    }
    ready.push({ hit: rescore(hits[next]!), at: next });
    next++;
  }
}

/** Adds to each passage a share of the scores of its document's other matching passages. */
export function withDocumentEvidence(hits: IndexHit[], share: number): IndexHit[] {
  if (share <= 0) return hits;
  const total = new Map<string, number>();
  for (const h of hits) total.set(h.row.documentId, (total.get(h.row.documentId) ?? 0) + h.score);
  return hits
    .map((h) => ({ row: h.row, score: h.score + share * ((total.get(h.row.documentId) ?? 0) - h.score) }))
    .sort((a, b) => b.score - a.score);
}
