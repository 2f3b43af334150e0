import type {
  EvaluationConfigurationInput as ConfigurationInput,
  EvaluationConfiguration,
  EvaluationMetric as Measured,
} from '@service/sdk';
import { formatDuration } from './progress.js';

/** A metric as the API gives it: null when no question it applies to was asked. */
type EvaluationMetric = Measured | null;

/** The metrics in the order the evaluation's table shows them, with their names for people. */
export const METRICS = [
  ['hitAt1', 'Hit@1'],
  ['hitAt5', 'Hit@5'],
  ['hitAt10', 'Hit@10'],
  ['mrr', 'MRR'],
  ['ndcgAt10', 'nDCG@10'],
  ['recallAt100', 'Recall@100'],
  ['answerRecallAt5', 'Answer in top 5'],
  ['chatContains', 'Answer contains'],
  ['citedContains', 'Citation contains'],
  ['citedExpected', 'Cites expected'],
  ['markersResolve', 'Markers resolve'],
  ['unanswerableDeclined', 'Unanswerable declined'],
  ['falseDeclines', 'False declines'],
  ['searchP50Ms', 'Search p50'],
  ['searchP95Ms', 'Search p95'],
  ['chatP50Ms', 'Answer p50'],
  ['chatP95Ms', 'Answer p95'],
] as const;

export type MetricName = (typeof METRICS)[number][0];

export const metricLabel = (name: string): string => METRICS.find(([n]) => n === name)?.[1] ?? name;

/** Latencies are in milliseconds; every other metric is a share of its questions, shown in per cent. */
export const isLatency = (name: string) => name.endsWith('Ms');

/** One number of a metric: "66.7 %" for a share, "12 ms" for a latency. */
export function formatMetricNumber(name: string, v: number): string {
  if (isLatency(name)) return `${Math.round(v)} ms`;
  return `${(Math.round(v * 1000) / 10).toFixed(1)} %`;
}

/** A metric's value and its 95 % interval in words, or "—" when no question it applies to was asked. */
export function formatMetric(name: string, m: EvaluationMetric): { value: string; interval: string } {
  if (m === null) return { value: '—', interval: '—' };
  return {
    value: formatMetricNumber(name, m.value),
    interval: `${formatMetricNumber(name, m.low)}–${formatMetricNumber(name, m.high)}`,
  };
}

/** A difference b - a with its interval: "+16.7 %" (points of a share) or "-3 ms", then "[-10.0 %–+33.3 %]". */
export function formatDifference(name: string, m: EvaluationMetric): { value: string; interval: string } {
  if (m === null) return { value: '—', interval: '—' };
  const signed = (v: number) => `${v > 0 ? '+' : ''}${formatMetricNumber(name, v)}`;
  return { value: signed(m.value), interval: `${signed(m.low)} to ${signed(m.high)}` };
}

/** What a configuration asked for, in words: "lexical search, top 10, extractive answers". */
export function describeConfiguration(c: EvaluationConfiguration): string {
  const rerank = c.search.rerank ? ', reranked' : '';
  const answers = c.answers ? `${c.answers.mode} answers` : 'no answers';
  return `${c.search.mode} search, top ${c.search.topK}${rerank}, ${answers}`;
}

export const inProgress = (e: { status: string }) => e.status === 'queued' || e.status === 'running';

/** "12 of 40 questions · about 3 s left" (the ETA while running, once the server has a pace). */
export function progressText(e: {
  status: string;
  progress: { done: number; total: number; etaSeconds: number | null };
}): string {
  const { done, total, etaSeconds } = e.progress;
  const base = `${done} of ${total} questions`;
  if (e.status !== 'running' || etaSeconds === null) return base;
  return `${base} · about ${formatDuration(etaSeconds)} left`;
}

export type SearchChoice = '' | 'lexical' | 'vector' | 'hybrid';
export type AnswersChoice = '' | 'extractive' | 'model' | 'none';

/** The evaluate form's choices as a configuration: what is left at "server default" is left out. */
export function configurationOf(
  mode: SearchChoice,
  topK: string,
  answers: AnswersChoice,
): ConfigurationInput {
  const search: NonNullable<ConfigurationInput['search']> = {};
  if (mode) search.mode = mode;
  if (topK.trim()) search.topK = Number(topK);
  return {
    ...(Object.keys(search).length ? { search } : {}),
    ...(answers === 'none' ? { answers: null } : answers ? { answers: { mode: answers } } : {}),
  };
}
