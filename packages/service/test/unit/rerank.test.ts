import { describe, expect, it, vi } from 'vitest';
import { scoresOf } from '../../src/adapters/models/http-reranker.js';
import type { IndexHit, IndexRow, Reranker } from '../../src/domain/ports.js';
import { rerankCandidates } from '../../src/search/rerank.js';

const row = (id: string, text: string): IndexRow => ({
  id,
  documentId: `doc_${id}`,
  ordinal: 0,
  text,
  headingPath: [],
  filename: `${id}.md`,
  sourceUrl: null,
  mediaType: 'text/markdown',
  pageStart: null,
  pageEnd: null,
  charStart: 0,
  charEnd: text.length,
  heading: `Title ${id}`,
});
const hits = (n: number): IndexHit[] =>
  Array.from({ length: n }, (_, i) => ({ row: row(`c${i}`, `passage ${i}`), score: 10 - i }));

/** A reranker whose score of a passage is looked up by its text; records what it was asked. */
function fakeReranker(scores: Record<string, number>) {
  const calls: { query: string; passages: string[] }[] = [];
  const reranker: Reranker = {
    model: 'fake',
    async score(query, passages) {
      calls.push({ query, passages });
      return passages.map((p) => scores[p.split('\n\n')[1]!] ?? 0);
    },
  };
  return { reranker, calls };
}

/** Yields `list`, counting how many items were taken. */
function counted(list: IndexHit[]) {
  const taken = { n: 0 };
  function* gen() {
    for (const h of list) {
      taken.n++;
      yield h;
    }
  }
  return { iterable: gen(), taken };
}

describe('reranking stage', () => {
  it('reorders the first candidates by the reranker’s scores, which become their scores', async () => {
    const { reranker, calls } = fakeReranker({ 'passage 0': 0.1, 'passage 1': 0.2, 'passage 2': 0.9 });
    const observe = vi.fn();
    const { iterable, taken } = counted(hits(6));
    const out = await rerankCandidates({ reranker: () => reranker, candidates: 3, observe }, 'q', iterable);
    // Only the candidates were taken from the lazily ranked list before reading on.
    expect(taken.n).toBe(3);
    expect(calls).toEqual([
      { query: 'q', passages: ['Title c0\n\npassage 0', 'Title c1\n\npassage 1', 'Title c2\n\npassage 2'] },
    ]);
    const list = [...out];
    expect(list.map((h) => [h.row.id, h.score])).toEqual([
      ['c2', 0.9],
      ['c1', 0.2],
      ['c0', 0.1],
      ['c3', 7],
      ['c4', 6],
      ['c5', 5],
    ]);
    expect(observe).toHaveBeenCalledWith(expect.any(Number), 'ok');
  });

  it('keeps the order, warns and counts a failure when the reranker fails', async () => {
    const reranker: Reranker = {
      model: 'down',
      score: () => Promise.reject(new Error('connection refused')),
    };
    const warn = vi.fn();
    const observe = vi.fn();
    const out = await rerankCandidates({ reranker: () => reranker, candidates: 30, observe }, 'q', hits(4), {
      warn,
    });
    expect([...out].map((h) => [h.row.id, h.score])).toEqual([
      ['c0', 10],
      ['c1', 9],
      ['c2', 8],
      ['c3', 7],
    ]);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ model: 'down' }),
      'reranking skipped: the reranker failed; results keep their order',
    );
    expect(observe).toHaveBeenCalledWith(expect.any(Number), 'failed');
  });

  it('treats a wrong number of scores as a failure', async () => {
    const reranker: Reranker = { model: 'short', score: async () => [0.5] };
    const warn = vi.fn();
    const out = await rerankCandidates({ reranker: () => reranker, candidates: 5 }, 'q', hits(3), { warn });
    expect([...out].map((h) => [h.row.id, h.score])).toEqual([
      ['c0', 10],
      ['c1', 9],
      ['c2', 8],
    ]);
    expect(warn).toHaveBeenCalledOnce();
  });

  it('leaves the candidates alone without a reranker or while its model is not available', async () => {
    const list = hits(3);
    expect(await rerankCandidates(undefined, 'q', list)).toBe(list);
    expect(await rerankCandidates({ reranker: () => undefined, candidates: 5 }, 'q', list)).toBe(list);
  });
});

describe('reranking responses', () => {
  it('reads TEI’s list and Cohere’s results into scores in the passages’ order', () => {
    expect(
      scoresOf(
        [
          { index: 2, score: 0.9 },
          { index: 0, score: 0.5 },
          { index: 1, score: 0.1 },
        ],
        3,
      ),
    ).toEqual([0.5, 0.1, 0.9]);
    expect(
      scoresOf(
        {
          results: [
            { index: 1, relevance_score: 0.8 },
            { index: 0, relevance_score: 0.3 },
          ],
        },
        2,
      ),
    ).toEqual([0.3, 0.8]);
  });

  it('refuses answers that do not score every passage exactly', () => {
    expect(() => scoresOf({ data: [] }, 1)).toThrow(/neither/);
    expect(() => scoresOf([{ index: 0, score: 1 }], 2)).toThrow(/scored 1 of 2/);
    expect(() => scoresOf([{ index: 5, score: 1 }], 2)).toThrow(/outside 0…1/);
    expect(() => scoresOf([{ index: 0, score: 'high' }], 1)).toThrow(/no numeric score/);
  });
});
