import { describe, expect, it } from 'vitest';
import {
  containsGold,
  ndcgAt,
  percentile,
  recallAt,
  unresolvedMarkers,
} from '../../../../bench/lib/metrics.js';

const judged = (entries: [string, number][]) => new Map(entries);

describe('retrieval metrics, checked against hand-computed values', () => {
  it('nDCG@10: hits at ranks 1 and 3 of three relevant documents', () => {
    // DCG = 1/log2(2) + 1/log2(4) = 1.5; IDCG = 1 + 1/log2(3) + 1/log2(4) = 2.1309298
    const n = ndcgAt(
      10,
      ['a', 'x', 'b', 'y'],
      judged([
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ]),
    );
    expect(n).toBeCloseTo(1.5 / 2.1309298, 6);
    expect(n).toBeCloseTo(0.703918, 5);
  });

  it('nDCG uses graded gains and the ideal order, and only the first k distinct ids', () => {
    // DCG = 1/1 + 2/log2(3) = 2.2618595; IDCG = 2/1 + 1/log2(3) = 2.6309298
    expect(
      ndcgAt(
        10,
        ['b', 'a'],
        judged([
          ['a', 2],
          ['b', 1],
        ]),
      ),
    ).toBeCloseTo(2.2618595 / 2.6309298, 6);
    expect(ndcgAt(1, ['x', 'a'], judged([['a', 1]]))).toBe(0);
    expect(
      ndcgAt(
        10,
        ['a', 'a', 'a'],
        judged([
          ['a', 1],
          ['b', 1],
        ]),
      ),
    ).toBeCloseTo(1 / (1 + 1 / Math.log2(3)), 6);
    expect(ndcgAt(10, ['a'], judged([['a', 0]]))).toBe(0);
  });

  it('Recall@k counts relevant documents in the first k distinct ids', () => {
    const j = judged([
      ['a', 1],
      ['b', 1],
      ['c', 1],
    ]);
    expect(recallAt(100, ['a', 'x', 'b'], j)).toBeCloseTo(2 / 3, 10);
    expect(recallAt(2, ['a', 'a', 'x', 'b'], j)).toBeCloseTo(1 / 3, 10);
    expect(recallAt(100, [], j)).toBe(0);
  });

  it('percentile is nearest-rank', () => {
    const xs = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(percentile(xs, 50)).toBe(5);
    expect(percentile(xs, 99)).toBe(10);
    expect(percentile(xs, 10)).toBe(1);
  });
});

describe('answer checks', () => {
  it('finds a gold answer after SQuAD normalisation, as whole words', () => {
    expect(containsGold('The Denver Broncos won. [1]', ['Denver Broncos'])).toBe(true);
    expect(containsGold('It was in the year 1990, [2]', ['1990'])).toBe(true);
    expect(containsGold('In 19901 nothing happened.', ['1990'])).toBe(false);
    expect(containsGold('Carolina Panthers', ['Denver Broncos', 'the Seahawks'])).toBe(false);
  });

  it('lists markers that no citation carries', () => {
    expect(unresolvedMarkers('A [1]. B [3]. C [2][1].', [1, 2])).toEqual([3]);
    expect(unresolvedMarkers('No markers.', [])).toEqual([]);
  });
});
