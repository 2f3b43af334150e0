import type { EvaluationMetric, EvaluationMetrics, EvaluationOutcome } from '@service/sdk';
import { isLatency, METRICS, type MetricName } from './evaluations.js';

/**
 * One colour per configuration (an evaluation has at most five), in the order of its configurations.
 * Each has at least 3:1 contrast on white (WCAG 1.4.11), and the charts also name each bar, so colour
 * is never the only cue.
 */
export const CONFIGURATION_COLOURS = ['#1f4e8c', '#b35300', '#1d7a46', '#7b3fa0', '#a8233a'] as const;

export const colourOf = (index: number): string =>
  CONFIGURATION_COLOURS[index % CONFIGURATION_COLOURS.length]!;

/** The metrics that are a share of their questions (every one but the latencies), in table order. */
export const QUALITY_METRICS: [MetricName, string][] = METRICS.filter(([name]) => !isLatency(name)).map(
  ([name, label]) => [name, label],
);

/** The quality metrics that some configuration has a value for: a chart of nothing but dashes says nothing. */
export function chartedMetrics(all: readonly EvaluationMetrics[]): [MetricName, string][] {
  return QUALITY_METRICS.filter(([name]) => all.some((m) => m[name] !== null));
}

const clampShare = (v: number) => Math.max(0, Math.min(1, v));

/** A share metric's bar and interval as per cent of the chart's width. */
export function barOf(m: EvaluationMetric): { value: number; low: number; high: number } {
  return {
    value: clampShare(m.value) * 100,
    low: clampShare(Math.min(m.low, m.high)) * 100,
    high: clampShare(Math.max(m.low, m.high)) * 100,
  };
}

/** A round upper end for a latency axis: 1, 2 or 5 times a power of ten, at least `max`. */
export function axisMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

export interface Bin {
  from: number;
  to: number;
  count: number;
}

/** `values` counted in `bins` equal bins from 0 to `max` (a value at `max` falls in the last one). */
export function histogram(values: readonly number[], max: number, bins: number): Bin[] {
  const width = max / bins;
  const out: Bin[] = Array.from({ length: bins }, (_, i) => ({
    from: i * width,
    to: (i + 1) * width,
    count: 0,
  }));
  for (const v of values) {
    const i = Math.min(bins - 1, Math.max(0, Math.floor(v / width)));
    out[i]!.count++;
  }
  return out;
}

/** Which questions the list shows: all, or those that passed or failed one metric (or any metric). */
export interface OutcomeFilter {
  outcome: 'all' | 'passed' | 'failed';
  /** '' for any metric. */
  metric: MetricName | '';
}

export function filterOutcomes(list: readonly EvaluationOutcome[], f: OutcomeFilter): EvaluationOutcome[] {
  if (f.outcome === 'all') return [...list];
  return list.filter((o) => {
    const names = f.outcome === 'passed' ? o.passed : o.failed;
    return f.metric ? names.includes(f.metric) : names.length > 0;
  });
}

/** The metrics the per-language and per-tag tables show: the main ones, not every check. */
export const GROUP_METRICS: [MetricName, string][] = [
  ['hitAt1', 'Hit@1'],
  ['hitAt5', 'Hit@5'],
  ['mrr', 'MRR'],
  ['answerRecallAt5', 'Answer in top 5'],
  ['chatContains', 'Answer contains'],
];

/** How many questions a group's metrics are over: the most any one of its metrics is over. */
export function groupSize(metrics: EvaluationMetrics): number {
  let n = 0;
  for (const m of Object.values(metrics) as (EvaluationMetric | null)[]) if (m && m.n > n) n = m.n;
  return n;
}
