import { createDocSlurpClient } from '../../packages/sdk/src/index.js';
import type { EvaluationConfigurationInput } from '../../packages/sdk/src/resources/evaluations.js';
import type { QuestionInput } from '../../packages/sdk/src/resources/question-sets.js';
import type { Evaluation, EvaluationOutcome } from '../../packages/sdk/src/types.js';
import type { SciFactQuery, SquadQuestion } from './data.js';

/**
 * Scores a benchmark's questions the way a user measures their own (issue 40): the question set is
 * stored through the API, an evaluation asks it in the service's worker, and the figures are the
 * evaluation's metrics and its per-question checks. Benchmarks keep no scorer of their own.
 */

export type BenchQuestion = QuestionInput;
export type BenchConfiguration = EvaluationConfigurationInput;

export interface EngineRun {
  evaluation: Evaluation;
  outcomes: EvaluationOutcome[];
  /** Wall time from storing the set to the last outcome read. */
  seconds: number;
}

/** The API accepts sets of up to 5,000 questions; larger ones are stored as several. */
const SET_LIMIT = 5_000;

export async function evaluateThroughService(
  service: { url: string; key: string },
  workspaceId: string,
  name: string,
  questions: readonly BenchQuestion[],
  configurations: readonly BenchConfiguration[],
  log: (s: string) => void = () => {},
): Promise<EngineRun> {
  if (questions.length > SET_LIMIT)
    throw new Error(`${name}: ${questions.length} questions, at most ${SET_LIMIT}`);
  const client = createDocSlurpClient({ apiUrl: service.url, apiKey: service.key });
  const t0 = performance.now();
  const set = await client.questionSets.create(workspaceId, { name, questions: [...questions] });
  const started = await client.evaluations.create({
    questionSetId: set.id,
    name,
    configurations: [...configurations],
  });
  let shown = 0;
  const evaluation = await client.evaluations.wait(started.id, {
    timeoutMs: 60 * 60_000,
    onProgress: (e) => {
      if (e.progress.done - shown >= 200) {
        shown = e.progress.done;
        log(`  ${name}: ${e.progress.done}/${e.progress.total} asked`);
      }
    },
  });
  const outcomes: EvaluationOutcome[] = [];
  for await (const o of client.evaluations.allQuestions(evaluation.id, { limit: 500 })) outcomes.push(o);
  return { evaluation, outcomes, seconds: (performance.now() - t0) / 1000 };
}

type Checks = EvaluationOutcome['checks'];

/**
 * The mean of one check over outcomes it applies to (NaN when none): for groupings an evaluation's
 * own results do not have, such as questions of several evaluations taken together.
 */
export function meanCheck(outcomes: readonly EvaluationOutcome[], check: keyof Checks): number {
  const values = outcomes.map((o) => o.checks[check]).filter((v): v is number => v !== null);
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** The outcomes of questions with a tag. */
export const tagged = (outcomes: readonly EvaluationOutcome[], tag: string) =>
  outcomes.filter((o) => o.tags.includes(tag));

/** A metric's value from an evaluation's results (NaN when no question it applies to was asked). */
export function metricValue(
  evaluation: Evaluation,
  metric: string,
  group?: { tag: string } | { language: string },
  configuration = 0,
): number {
  const r = evaluation.results?.[configuration];
  if (!r) return Number.NaN;
  const metrics =
    group === undefined ? r.metrics : 'tag' in group ? r.tags[group.tag] : r.languages[group.language];
  const m = (metrics as Record<string, { value: number } | null> | undefined)?.[metric];
  return m ? m.value : Number.NaN;
}

/** SciFact claims as questions: each expects its judged abstracts (files `<corpus id>.md`). */
export const sciFactQuestions = (queries: readonly SciFactQuery[]): BenchQuestion[] =>
  queries.map((q) => ({
    q: q.text,
    expected: [...q.judged].filter(([, grade]) => grade > 0).map(([id]) => `${id}.md`),
    tags: [q.id],
  }));

/** The configuration SciFact is scored with: 100 passages, one per document, no answers. */
export const sciFactConfiguration = (mode?: 'lexical' | 'vector' | 'hybrid', name = mode ?? 'auto') => ({
  name,
  search: { topK: 100, maxChunksPerDocument: 1, ...(mode ? { mode } : {}) },
  answers: null,
});

/**
 * SQuAD questions as questions: gold answers compared SQuAD's way, the gold paragraph's file
 * (`squad-<paragraph id>.md`) expected; `unanswerable` for questions about paragraphs not uploaded.
 */
export const squadQuestions = (
  questions: readonly SquadQuestion[],
  options: { unanswerable?: boolean } = {},
): BenchQuestion[] =>
  questions.map((q) =>
    options.unanswerable
      ? { q: q.question, unanswerable: true, tags: [q.id] }
      : {
          q: q.question,
          answers: q.answers,
          match: 'squad' as const,
          expected: [`squad-${q.paragraphId}.md`],
          tags: [q.id],
        },
  );

/** The configuration SQuAD is scored with: answers as chat gives them by default (8 passages). */
export const SQUAD_CONFIGURATION: BenchConfiguration = { name: 'default', search: { topK: 8 } };
