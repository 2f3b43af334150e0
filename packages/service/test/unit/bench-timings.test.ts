import { describe, expect, it } from 'vitest';
import { mean, percentile } from '../../../../bench/lib/metrics.js';

// Quality metrics are the evaluation engine's (evaluation-metrics.test.ts, answer-match.test.ts).
describe("the benchmarks' timing summaries", () => {
  it('percentile is nearest-rank', () => {
    const xs = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(percentile(xs, 50)).toBe(5);
    expect(percentile(xs, 99)).toBe(10);
    expect(percentile(xs, 10)).toBe(1);
    expect(percentile([], 50)).toBeNaN();
  });

  it('mean is 0 for no values', () => {
    expect(mean([1, 2, 6])).toBe(3);
    expect(mean([])).toBe(0);
  });
});
