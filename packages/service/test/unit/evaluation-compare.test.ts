import { describe, expect, it } from 'vitest';
import { difference } from '../../src/evaluation/compare.js';
import { resolveConfigurations } from '../../src/evaluation/evaluations.js';
import { meanOf } from '../../src/evaluation/metrics.js';

/** Comparing evaluations (issue 40), and the configurations an evaluation is made with. */
describe('the difference of two evaluations', () => {
  // 200 questions; b gets 10 of a's misses right and nothing wrong that a had right.
  const a = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? 1 : 0));
  const b = a.map((v, i) => (v === 0 && i < 20 ? 1 : v));

  it('is b - a, with an interval over the same questions much narrower than over separate samples', () => {
    const paired = difference(a, b, meanOf, true)!;
    const separate = difference(a, b, meanOf, false)!;
    expect(paired.value).toBeCloseTo(0.05, 10);
    expect(separate.value).toBeCloseTo(0.05, 10);
    // Paired, every resample keeps b at least as good as a: the change is certain on these questions.
    expect(paired.low).toBeGreaterThan(0);
    expect(paired.high - paired.low).toBeLessThan((separate.high - separate.low) / 2);
    // Separately, the same change is within the noise of two samples of 200.
    expect(separate.low).toBeLessThan(0);
    expect(paired.n).toBe(200);
  });

  it('is the same each time it is worked out (seeded), and null without questions', () => {
    expect(difference(a, b, meanOf, true)).toEqual(difference(a, b, meanOf, true));
    expect(difference([], b, meanOf, false)).toBeNull();
    expect(() => difference(a, b.slice(1), meanOf, true)).toThrow(/different lengths/);
  });
});

describe('configurations of an evaluation', () => {
  const bare = { embeddings: false, reranker: false, chatModel: false, hybridWeight: 0.5, maxTopK: 50 };
  const full = { embeddings: true, reranker: true, chatModel: true, hybridWeight: 0.3, maxTopK: 50 };

  it("are the server's defaults when left out, every choice written down", () => {
    expect(resolveConfigurations(undefined, bare)).toEqual([
      {
        name: 'default',
        search: { topK: 10, mode: 'lexical', hybridWeight: 0.5, rerank: false, maxChunksPerDocument: null },
        answers: { mode: 'extractive' },
      },
    ]);
    expect(resolveConfigurations([{}], full)).toEqual([
      {
        name: 'default',
        search: { topK: 10, mode: 'hybrid', hybridWeight: 0.3, rerank: true, maxChunksPerDocument: null },
        answers: { mode: 'model' },
      },
    ]);
  });

  it('name themselves by place when several are unnamed, and may ask for passages only', () => {
    const made = resolveConfigurations([{ answers: null }, { search: { topK: 3 } }], bare);
    expect(made.map((c) => c.name)).toEqual(['configuration 1', 'configuration 2']);
    expect(made[0]!.answers).toBeNull();
    expect(made[1]!.search.topK).toBe(3);
  });

  it('refuse what the server has not, too many, the same name twice and a topK over the limit', () => {
    expect(() => resolveConfigurations([{ search: { mode: 'vector' } }], bare)).toThrow(
      /EMBEDDINGS_PROVIDER/,
    );
    expect(() => resolveConfigurations([{ search: { rerank: true } }], bare)).toThrow(/RERANK_PROVIDER/);
    expect(() => resolveConfigurations([{ answers: { mode: 'model' } }], bare)).toThrow(/LLM_BASE_URL/);
    expect(() =>
      resolveConfigurations(
        Array.from({ length: 6 }, () => ({})),
        full,
      ),
    ).toThrow(/at most 5/);
    expect(() => resolveConfigurations([{ name: 'x' }, { name: 'x' }], full)).toThrow(/"x"/);
    expect(() => resolveConfigurations([{ search: { topK: 51 } }], full)).toThrow(/at most 50/);
  });
});
