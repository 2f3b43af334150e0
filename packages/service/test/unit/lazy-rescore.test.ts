import { describe, expect, it } from 'vitest';
import type { IndexHit } from '../../src/domain/ports.js';
import { Question } from '../../src/search/question.js';
import { rescoredInOrder, rescoreLexical } from '../../src/search/ranking.js';

const WORDS = [
  'fracture',
  'risk',
  'vitamin',
  'deficiency',
  'the',
  'of',
  'bone',
  'increases',
  'older',
  'patients',
];

/** A hit whose passage counts how often it is read (rescoring reads it). */
function hit(id: number, score: number, text: string, heading: string, reads: number[]): IndexHit {
  return {
    score,
    row: {
      id: `c${id}`,
      documentId: `d${id % 7}`,
      ordinal: 0,
      get text() {
        reads[id] = (reads[id] ?? 0) + 1;
        return text;
      },
      headingPath: [],
      heading,
      filename: 'f.txt',
      sourceUrl: null,
      mediaType: 'text/plain',
      pageStart: null,
      pageEnd: null,
      charStart: 0,
      charEnd: text.length,
    } as IndexHit['row'],
  };
}

function randomHits(seed: number, n: number, reads: number[] = []): IndexHit[] {
  let x = seed;
  const next = () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x;
  };
  const text = () => Array.from({ length: 3 + (next() % 12) }, () => WORDS[next() % WORDS.length]).join(' ');
  // Few distinct scores, so ties (kept in input order) are common.
  return Array.from({ length: n }, (_, i) =>
    hit(i, (next() % 9) / 2, text(), i % 3 ? '' : text(), reads),
  ).sort((a, b) => b.score - a.score);
}

const ids = (hits: Iterable<IndexHit>) => [...hits].map((h) => [h.row.id, h.score]);

describe('rescoredInOrder', () => {
  it('hands out the hits of rescoreLexical in the same order with the same scores', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const hits = randomHits(seed, seed % 40);
      for (const [pw, cw] of [
        [0.2, 0],
        [1, 0],
        [0.2, 0.3],
        [0, 0],
      ] as const) {
        for (const q of [
          'fracture risk',
          'vitamin deficiency of bone',
          'risk',
          'older patients increases risk',
        ]) {
          expect(ids(rescoredInOrder(hits, new Question(q), pw, cw))).toEqual(
            ids(rescoreLexical(hits, new Question(q), pw, cw)),
          );
        }
      }
    }
  });

  it('also when the scores are not sorted or not all positive', () => {
    const hits = randomHits(3, 30).reverse();
    expect(ids(rescoredInOrder(hits, new Question('fracture risk'), 0.2))).toEqual(
      ids(rescoreLexical(hits, new Question('fracture risk'), 0.2)),
    );
    hits[4]!.score = -1;
    expect(ids(rescoredInOrder(hits, new Question('fracture risk'), 0.2))).toEqual(
      ids(rescoreLexical(hits, new Question('fracture risk'), 0.2)),
    );
  });

  it('rescores only as far as the reader takes', () => {
    const reads: number[] = [];
    // Scores far apart: the first hit stays first whatever the rest score.
    const hits = Array.from({ length: 60 }, (_, i) => hit(i, 100 / (i + 1), 'fracture risk', '', reads));
    const first = rescoredInOrder(hits, new Question('fracture risk'), 0.2).next().value as IndexHit;
    expect(first.row.id).toBe('c0');
    expect(reads.filter((n) => n > 0).length).toBeLessThanOrEqual(2);
  });
});
