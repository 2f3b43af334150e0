import type { EvaluationMetrics, EvaluationOutcome } from '@service/sdk';
import { describe, expect, it } from 'vitest';
import {
  axisMax,
  barOf,
  chartedMetrics,
  colourOf,
  filterOutcomes,
  groupSize,
  histogram,
  QUALITY_METRICS,
} from '../../src/lib/results.js';

const outcome = (ordinal: number, passed: string[], failed: string[]) =>
  ({ ordinal, passed, failed }) as unknown as EvaluationOutcome;

const metrics = (m: Partial<Record<keyof EvaluationMetrics, { value: number; n: number } | null>>) => {
  const all = Object.fromEntries(QUALITY_METRICS.map(([name]) => [name, null])) as Record<string, unknown>;
  for (const [k, v] of Object.entries(m)) all[k] = v ? { ...v, low: v.value, high: v.value } : null;
  return all as unknown as EvaluationMetrics;
};

describe('the results page helpers', () => {
  it('charts only the share metrics that some configuration has', () => {
    expect(QUALITY_METRICS.some(([n]) => n.endsWith('Ms'))).toBe(false);
    const charted = chartedMetrics([
      metrics({ hitAt1: { value: 1, n: 2 } }),
      metrics({ mrr: { value: 0.5, n: 2 } }),
    ]);
    expect(charted.map(([n]) => n)).toEqual(['hitAt1', 'mrr']);
  });

  it('draws a bar and its interval in per cent, clamped and in order', () => {
    expect(barOf({ value: 0.5, low: 0.25, high: 0.75, n: 4 })).toEqual({ value: 50, low: 25, high: 75 });
    expect(barOf({ value: 1, low: 1.2, high: -0.1, n: 1 })).toEqual({ value: 100, low: 0, high: 100 });
  });

  it('gives each configuration its own colour', () => {
    expect(new Set([0, 1, 2, 3, 4].map(colourOf)).size).toBe(5);
  });

  it('counts latencies in bins on a round axis', () => {
    expect(axisMax(0)).toBe(1);
    expect(axisMax(37)).toBe(50);
    expect(axisMax(120)).toBe(200);
    expect(axisMax(100)).toBe(100);
    expect(histogram([0, 4, 5, 9.9, 10], 10, 2).map((b) => b.count)).toEqual([2, 3]);
  });

  it('filters questions by what they passed or failed', () => {
    const list = [
      outcome(0, ['hitAt1'], []),
      outcome(1, [], ['hitAt1', 'mrr']),
      outcome(2, ['mrr'], ['hitAt1']),
    ];
    const ordinals = (l: EvaluationOutcome[]) => l.map((o) => o.ordinal);
    expect(ordinals(filterOutcomes(list, { outcome: 'all', metric: 'hitAt1' }))).toEqual([0, 1, 2]);
    expect(ordinals(filterOutcomes(list, { outcome: 'failed', metric: 'hitAt1' }))).toEqual([1, 2]);
    expect(ordinals(filterOutcomes(list, { outcome: 'passed', metric: 'mrr' }))).toEqual([2]);
    expect(ordinals(filterOutcomes(list, { outcome: 'failed', metric: '' }))).toEqual([1, 2]);
  });

  it("names a group's size by the metric over the most questions", () => {
    expect(groupSize(metrics({ hitAt1: { value: 1, n: 2 }, chatContains: { value: 1, n: 3 } }))).toBe(3);
  });
});
