import type { Evaluation, EvaluationOutcome } from '../../packages/sdk/src/types.js';
import { answerMatcher } from '../../packages/service/src/evaluation/answer-match.js';
import type { ServiceClient } from './driver.js';
import { type BenchQuestion, metricValue } from './engine.js';
import type { AnswerableQuestion, UnanswerableQuestion } from './manual-set.js';

/** Passages a search returns for each question: what a user sees first. */
export const TOP_K = 5;

/** The tag of a question's kind (its split is a tag of its own: `tune` or `holdout`). */
export const kindTag = (kind: string) => `kind:${kind}`;

/**
 * A manual's questions as a question set: an answerable one expects its page and matches its answer
 * pattern; an unanswerable one is right when declined. Split and kind are tags, so the evaluation
 * reports each.
 */
export function manualQuestions(
  answerable: readonly AnswerableQuestion[],
  unanswerable: readonly UnanswerableQuestion[],
  language?: string,
): BenchQuestion[] {
  return [
    ...answerable.map((q) => ({
      q: q.q,
      patterns: [q.answer],
      expected: [{ document: q.page }],
      tags: [q.split, kindTag(q.kind)],
      language: language ?? null,
    })),
    ...unanswerable.map((q) => ({
      q: q.q,
      unanswerable: true,
      tags: [q.split, kindTag(q.kind)],
      language: language ?? null,
    })),
  ];
}

/** Whether a text holds an answer pattern, as the evaluation engine decides it. */
export const holdsPattern = (pattern: string, text: string) =>
  answerMatcher({ answers: [], patterns: [pattern], match: 'folded' })(text);

/**
 * For each answerable question, whether its answer is in the service's extracted text of its page
 * (GET /v1/documents/{id}/text): when it is not, no ranking can find it and the loss is the parser's.
 */
export async function extractedAnswers(
  client: ServiceClient,
  workspaceId: string,
  answerable: readonly AnswerableQuestion[],
): Promise<boolean[]> {
  const { documents } = (await client.get(`/v1/workspaces/${workspaceId}/documents`)) as {
    documents: { id: string; filename: string }[];
  };
  const ids = new Map(documents.map((d) => [d.filename, d.id]));
  const texts = new Map<string, string>();
  for (const name of new Set(answerable.map((q) => q.page))) {
    const id = ids.get(name);
    if (!id) throw new Error(`${name} is not a document of workspace ${workspaceId}`);
    texts.set(name, await client.getText(`/v1/documents/${id}/text`));
  }
  return answerable.map((q) => holdsPattern(q.answer, texts.get(q.page) ?? ''));
}

export interface ManualScores {
  answerable: number;
  /** Share of answerable questions whose answer is in the service's extracted text of its page. */
  answerExtracted: number;
  /** Share of answerable questions with a top-5 passage that matches the answer (`answerRecallAt5`). */
  answerRecall5: number;
  /** Share with a top-5 passage from the page that answers it (`hitAt5`, ties counted as odds). */
  pageHit5: number;
  /** Mean of 1 / rank of the first passage from the answering page, within the top 5 (`mrr`). */
  mrr5: number;
  /** Share of chat answers that contain the answer (`chatContains`). */
  chatContains: number;
  /** Answerable questions the chat declined. */
  falseDeclines: number;
  unanswerable: number;
  /** Unanswerable questions the chat declined. */
  declined: number;
  /** declined / unanswerable. */
  declineRate: number;
}

const count = (evaluation: Evaluation, metric: string, group?: { tag: string }) => {
  const r = evaluation.results?.[0];
  const metrics = group ? r?.tags[group.tag] : r?.metrics;
  const m = (metrics as Record<string, { value: number; n: number } | null> | undefined)?.[metric];
  return m ? { n: m.n, hits: Math.round(m.value * m.n) } : { n: 0, hits: 0 };
};

/** A manual's figures from its evaluation, overall or for one tag (a split or a kind). */
export function manualScores(
  evaluation: Evaluation,
  extracted: { share: number },
  group?: { tag: string },
): ManualScores {
  const value = (metric: string) => metricValue(evaluation, metric, group);
  const declines = count(evaluation, 'unanswerableDeclined', group);
  const falseDeclines = count(evaluation, 'falseDeclines', group);
  return {
    answerable: count(evaluation, 'answerRecallAt5', group).n,
    answerExtracted: extracted.share,
    answerRecall5: value('answerRecallAt5'),
    pageHit5: value('hitAt5'),
    mrr5: value('mrr'),
    chatContains: value('chatContains'),
    falseDeclines: falseDeclines.hits,
    unanswerable: declines.n,
    declined: declines.hits,
    declineRate: declines.n ? declines.hits / declines.n : Number.NaN,
  };
}

/** What each question got, for the results file: retrieved file names, the answer and its checks. */
export const outcomeRecord = (o: EvaluationOutcome) => ({
  q: o.q,
  tags: o.tags,
  top: o.retrieved.map((r) => r.filename),
  answer: o.answer?.text ?? null,
  kind: o.answer?.kind ?? null,
  cited: o.answer?.citations.map((c) => c.filename) ?? [],
  passed: o.passed,
  failed: o.failed,
});
