import type { SciFactQuery, SquadQuestion } from './data.js';
import type { ServiceClient } from './driver.js';
import { containsGold, mean, ndcgAt, percentile, recallAt, unresolvedMarkers } from './metrics.js';

export interface RetrievalScores {
  queries: number;
  ndcg10: number;
  recall100: number;
  latencyMs: { p50: number; p99: number; mean: number };
}

/**
 * Asks every query through POST /v1/search (one passage per document, 100 documents) and scores the
 * ranking of corpus ids, which are the uploaded files' names without extension.
 */
export async function evaluateRetrieval(
  client: ServiceClient,
  workspaceId: string,
  queries: SciFactQuery[],
  extra: Record<string, unknown> = {},
): Promise<RetrievalScores & { perQuery: { id: string; ndcg10: number }[] }> {
  const ndcg: number[] = [];
  const recall: number[] = [];
  const latency: number[] = [];
  const perQuery: { id: string; ndcg10: number }[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const r = await client.search({ workspaceId, q: q.text, topK: 100, maxChunksPerDocument: 1, ...extra });
    latency.push(performance.now() - t0);
    const ranked = (r.results as { citation: { filename: string } }[]).map((h) =>
      h.citation.filename.replace(/\.[^.]+$/, ''),
    );
    const n = ndcgAt(10, ranked, q.judged);
    ndcg.push(n);
    recall.push(recallAt(100, ranked, q.judged));
    perQuery.push({ id: q.id, ndcg10: n });
  }
  return {
    queries: queries.length,
    ndcg10: mean(ndcg),
    recall100: mean(recall),
    latencyMs: { p50: percentile(latency, 50), p99: percentile(latency, 99), mean: mean(latency) },
    perQuery,
  };
}

export interface AnswerScores {
  questions: number;
  answerContainsGold: number;
  citationAtGold: number;
  /** Questions whose answer had at least one `[n]` marker without a citation. */
  answersWithUnresolvedMarkers: number;
  unresolvedMarkers: number;
  declined: number;
  latencyMs: { p50: number; p99: number; mean: number };
}

export interface AnswerSample {
  id: string;
  question: string;
  gold: string[];
  answer: string;
  containsGold: boolean;
  citedGold: boolean;
}

/**
 * Asks every question through POST /v1/search/chat and checks the answer against SQuAD's gold
 * answers, the citations against the gold paragraph (file `squad-<paragraph id>.md`), and that every
 * marker resolves.
 */
export async function evaluateAnswers(
  client: ServiceClient,
  workspaceId: string,
  questions: SquadQuestion[],
  extra: Record<string, unknown> = {},
): Promise<AnswerScores & { samples: AnswerSample[] }> {
  let gold = 0;
  let cited = 0;
  let withUnresolved = 0;
  let unresolved = 0;
  let declined = 0;
  const latency: number[] = [];
  const samples: AnswerSample[] = [];
  for (const q of questions) {
    const t0 = performance.now();
    const r = await client.chat({ workspaceId, q: q.question, ...extra });
    latency.push(performance.now() - t0);
    const citations = r.citations as { n: number; filename: string }[];
    const answer = r.answer as string;
    const hasGold = containsGold(answer, q.answers);
    const citedGold = citations.some((c) => c.filename === `squad-${q.paragraphId}.md`);
    const bad = unresolvedMarkers(
      answer,
      citations.map((c) => c.n),
    );
    if (hasGold) gold++;
    if (citedGold) cited++;
    if (bad.length) withUnresolved++;
    unresolved += bad.length;
    if (citations.length === 0) declined++;
    samples.push({
      id: q.id,
      question: q.question,
      gold: q.answers,
      answer,
      containsGold: hasGold,
      citedGold,
    });
  }
  const n = questions.length || 1;
  return {
    questions: questions.length,
    answerContainsGold: gold / n,
    citationAtGold: cited / n,
    answersWithUnresolvedMarkers: withUnresolved,
    unresolvedMarkers: unresolved,
    declined,
    latencyMs: { p50: percentile(latency, 50), p99: percentile(latency, 99), mean: mean(latency) },
    samples,
  };
}
