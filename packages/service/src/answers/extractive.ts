import type { Citation, SearchHit } from '../domain/types.js';
import { contentTerms, words } from '../text/english.js';
import { sentenceSpans } from '../text/sentences.js';
import { neutraliseMarkers } from './markers.js';

export const NOT_FOUND_ANSWER = 'I could not find an answer to that in this workspace.';

export interface AnswerCitation extends Citation {
  /** The number used in the answer's `[n]` markers. */
  n: number;
  /** The cited words: the sentences of the passage that the answer uses. */
  text: string;
}

export interface Answer {
  answer: string;
  citations: AnswerCitation[];
}

export interface ExtractiveOptions {
  maxSentences: number;
  /** Share of the query's (weighted) terms the best sentence must contain to count as an answer. */
  minCoverage: number;
  /** A further sentence joins when it covers at least this share of the best one's (weighted) terms. */
  companionCoverage: number;
  /** Sentences taken from one passage; a second one must add question terms the first lacks. */
  perPassage: number;
}

export const DEFAULT_EXTRACTIVE: ExtractiveOptions = {
  maxSentences: 3,
  minCoverage: 0.25,
  companionCoverage: 0.5,
  perPassage: 2,
};

interface Candidate {
  hitIndex: number;
  start: number;
  end: number;
  text: string;
  terms: Set<string>;
  coverage: number;
  score: number;
}

/** Strips Markdown structure (heading hashes, list bullets, table pipes) from a quoted sentence. */
function clean(sentence: string): string {
  return sentence
    .replace(/^#{1,6}\s+/, '')
    .replace(/^\s*([-*+]|\d+\.)\s+/, '')
    .replace(/\s*\|\s*/g, ' | ')
    .replace(/^\|\s*|\s*\|$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Builds an answer only from sentences of the retrieved passages: it never writes a word of its own
 * beyond the markers. Sentences are scored by how much of the question's vocabulary they cover,
 * weighted so that rare terms count more, plus the relevance of their passage. The best sentence
 * answers; the best sentences of other passages that cover nearly as much join it (at most one per
 * passage), so that the answer draws on several sources when they agree and stays a few sentences.
 */
export function composeExtractiveAnswer(
  question: string,
  hits: SearchHit[],
  options: ExtractiveOptions = DEFAULT_EXTRACTIVE,
): Answer {
  let qTerms = [...new Set(contentTerms(question))];
  if (qTerms.length === 0) qTerms = [...new Set(words(question))];
  if (qTerms.length === 0 || hits.length === 0) return { answer: NOT_FOUND_ANSWER, citations: [] };

  const candidates: Candidate[] = [];
  hits.forEach((hit, hitIndex) => {
    for (const [start, end] of sentenceSpans(hit.text)) {
      // Headings name a topic; they do not answer a question.
      if (/^#{1,6}\s/.test(hit.text.slice(start, end))) continue;
      const text = clean(hit.text.slice(start, end));
      if (text.length < 12 || !/[\p{L}]/u.test(text)) continue;
      const terms = new Set(contentTerms(text));
      candidates.push({ hitIndex, start, end, text, terms, coverage: 0, score: 0 });
    }
  });
  if (candidates.length === 0) return { answer: NOT_FOUND_ANSWER, citations: [] };

  const weight = new Map<string, number>();
  for (const t of qTerms) {
    const df = candidates.filter((c) => c.terms.has(t)).length;
    weight.set(t, Math.log(1 + candidates.length / (df || 0.5)));
  }
  const total = [...weight.values()].reduce((a, b) => a + b, 0);
  const topScore = Math.max(...hits.map((h) => h.score), 0);
  for (const c of candidates) {
    c.coverage = qTerms.filter((t) => c.terms.has(t)).reduce((a, t) => a + (weight.get(t) ?? 0), 0) / total;
    const relevance = topScore > 0 ? Math.max(0, hits[c.hitIndex]!.score) / topScore : 0;
    const lengthPenalty = c.text.length > 400 ? 0.85 : 1;
    c.score = c.coverage * lengthPenalty + 0.1 * relevance + 0.02 / (c.hitIndex + 1);
  }
  const ranked = [...candidates].sort((a, b) => b.score - a.score);
  const best = ranked[0]!;
  if (best.coverage < options.minCoverage) return { answer: NOT_FOUND_ANSWER, citations: [] };

  const chosen: Candidate[] = [best];
  const perHit = new Map([[best.hitIndex, 1]]);
  for (const c of ranked.slice(1)) {
    if (chosen.length >= options.maxSentences) break;
    if (c.coverage < best.coverage * options.companionCoverage) continue;
    if (chosen.some((x) => x.text === c.text)) continue;
    const fromPassage = perHit.get(c.hitIndex) ?? 0;
    if (fromPassage >= options.perPassage) continue;
    const addsTerms = qTerms.some((t) => c.terms.has(t) && !chosen.some((x) => x.terms.has(t)));
    if (fromPassage > 0 && !addsTerms) continue;
    chosen.push(c);
    perHit.set(c.hitIndex, fromPassage + 1);
  }
  chosen.sort((a, b) => a.hitIndex - b.hitIndex || a.start - b.start);

  const citations: AnswerCitation[] = [];
  const parts: string[] = [];
  for (const c of chosen) {
    const hit = hits[c.hitIndex]!;
    const citation: AnswerCitation = {
      ...hit.citation,
      n: citations.length + 1,
      text: c.text,
      charStart: hit.citation.charStart + c.start,
      charEnd: hit.citation.charStart + c.end,
    };
    citations.push(citation);
    parts.push(`${neutraliseMarkers(c.text)} [${citation.n}]`);
  }
  return { answer: parts.join(' '), citations };
}
