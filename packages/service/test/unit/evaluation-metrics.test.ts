import { describe, expect, it } from 'vitest';
import {
  bootstrap,
  checkQuestion,
  type QuestionOutcome,
  type RetrievedPassage,
  rankOdds,
  summarize,
  summarizeGroups,
} from '../../src/evaluation/metrics.js';
import { type Question, storedQuestion } from '../../src/evaluation/questions.js';

const question = (q: Partial<Question>): Question => storedQuestion({ q: 'a question', ...q });
const passage = (
  documentId: string,
  score: number,
  text = '',
  page: number | null = null,
): RetrievedPassage => ({
  documentId,
  filename: `${documentId}.pdf`,
  page,
  text,
  score,
});
const outcome = (
  q: Partial<Question>,
  retrieved: RetrievedPassage[],
  extra: Partial<QuestionOutcome> = {},
) => ({
  question: question(q),
  retrieved,
  searchMs: 10,
  ...extra,
});

describe('evaluation checks of one question (issue 40)', () => {
  it('ranks the first expected document, by id, by filename, or on its page', () => {
    const retrieved = [passage('a', 3), passage('b', 2, '', 7), passage('c', 1)];
    expect(checkQuestion(outcome({ expected: [{ document: 'b' }] }, retrieved))).toMatchObject({
      firstHitRank: 2,
      hitAt1: 0,
      hitAt5: 1,
      reciprocalRank: 0.5,
    });
    expect(checkQuestion(outcome({ expected: [{ document: 'c.pdf' }] }, retrieved)).firstHitRank).toBe(3);
    expect(checkQuestion(outcome({ expected: [{ document: 'b', page: 8 }] }, retrieved))).toMatchObject({
      firstHitRank: null,
      hitAt10: 0,
      reciprocalRank: 0,
    });
    // A question that expects nothing is not counted by the rank checks at all.
    expect(checkQuestion(outcome({}, retrieved))).toMatchObject({
      hitAt1: null,
      reciprocalRank: null,
      ndcgAt10: null,
    });
  });

  it('takes passages of equal score in every order they could have come in', () => {
    // b is relevant and tied with c at ranks 2-3: first at 2 or 3, even odds.
    const tied = [passage('a', 3), passage('c', 1), passage('b', 1)];
    const checks = checkQuestion(outcome({ expected: [{ document: 'b' }] }, tied));
    expect(checks.firstHitRank).toBe(2.5);
    expect(checks.hitAt1).toBe(0);
    expect(checks.reciprocalRank).toBeCloseTo((1 / 2 + 1 / 3) / 2, 12);
    // Two relevant among four tied at ranks 1-4: first at 1 with 1/2, 2 with 1/3, 3 with 1/6.
    expect(rankOdds([true, false, true, false], [1, 1, 1, 1])).toEqual([
      { rank: 1, p: 0.5 },
      { rank: 2, p: 1 / 3 },
      { rank: 3, p: 1 / 6 },
    ]);
    const four = [passage('x', 1), passage('b', 1), passage('y', 1), passage('b', 1)];
    expect(checkQuestion(outcome({ expected: [{ document: 'b' }] }, four)).hitAt1).toBe(0.5);
  });

  it('scores nDCG@10 with each expected item credited once, and answer recall in the first five passages', () => {
    const retrieved = [
      passage('a', 5, 'The warranty lasts two years.'),
      passage('a', 4),
      passage('x', 3),
      passage('b', 2),
      passage('y', 1),
      passage('z', 0.5, 'Two   YEARS is the term.'),
    ];
    const checks = checkQuestion(
      outcome({ expected: [{ document: 'a' }, { document: 'b' }], answers: ['two years'] }, retrieved),
    );
    // Gains at ranks 1 and 4 (the second passage of a is not credited again); ideal: ranks 1 and 2.
    expect(checks.ndcgAt10).toBeCloseTo((1 + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)), 12);
    expect(checks.answerRecallAt5).toBe(1);
    const late = checkQuestion(outcome({ answers: ['the term'] }, retrieved));
    expect(late.answerRecallAt5).toBe(0); // only the sixth passage has it
    const byPassage = checkQuestion(outcome({ expected: [{ passage: 'two years is' }] }, retrieved));
    expect(byPassage.firstHitRank).toBe(6);
  });

  it('checks answers: contains, cited, markers, declines right and wrong', () => {
    const cite = (n: number, text: string) => ({ n, documentId: 'a', filename: 'a.pdf', page: null, text });
    const answered = checkQuestion(
      outcome({ answers: ['two years'] }, [], {
        answer: {
          text: 'It lasts two years [1] [3].',
          declined: false,
          citations: [cite(1, 'lasts two years')],
        },
      }),
    );
    expect(answered).toMatchObject({ chatContains: 1, citedContains: 1, markersResolve: 0, falseDecline: 0 });
    const declined = checkQuestion(
      outcome({ answers: ['two years'] }, [], {
        answer: { text: 'No answer.', declined: true, citations: [] },
      }),
    );
    expect(declined).toMatchObject({
      chatContains: 0,
      citedContains: 0,
      markersResolve: null,
      falseDecline: 1,
    });
    const offTopic = checkQuestion(
      outcome({ unanswerable: true }, [], { answer: { text: 'No answer.', declined: true, citations: [] } }),
    );
    expect(offTopic).toMatchObject({ unanswerableDeclined: 1, falseDecline: null, chatContains: null });
    // Passages only: no answer checks at all.
    expect(checkQuestion(outcome({ answers: ['x'] }, []))).toMatchObject({
      chatContains: null,
      falseDecline: null,
    });
  });
});

describe('evaluation metrics over a set', () => {
  it('are means over the questions each applies to, with n', () => {
    const metrics = summarize([
      outcome({ expected: [{ document: 'a' }] }, [passage('a', 1)], { searchMs: 30 }),
      outcome({ expected: [{ document: 'a' }] }, [passage('b', 2), passage('a', 1)], { searchMs: 10 }),
      outcome({ expected: [{ document: 'a' }] }, [passage('b', 1)], { searchMs: 20 }),
      outcome({ answers: ['gate'] }, [passage('c', 1, 'the gate')], { searchMs: 40 }),
    ]);
    expect(metrics.hitAt1).toMatchObject({ value: 1 / 3, n: 3 });
    expect(metrics.hitAt5).toMatchObject({ value: 2 / 3, n: 3 });
    expect(metrics.mrr).toMatchObject({ value: (1 + 0.5 + 0) / 3, n: 3 });
    expect(metrics.answerRecallAt5).toMatchObject({ value: 1, low: 1, high: 1, n: 1 });
    expect(metrics.searchP50Ms).toMatchObject({ value: 20, n: 4 });
    expect(metrics.searchP95Ms?.value).toBe(40);
    expect(metrics.chatContains).toBeNull();
    expect(metrics.chatP50Ms).toBeNull();
  });

  it('have bootstrap intervals: [0, 1] for two answers of 0 and 1, a point for a constant, the same each time', () => {
    const mean = (s: readonly number[]) => s.reduce((a, b) => a + b, 0) / s.length;
    // Resample means of {0, 1} are 0, 1/2 and 1 with odds 1/4, 1/2, 1/4: the 2.5th and 97.5th percentiles are 0 and 1.
    expect(bootstrap([0, 1], mean)).toEqual({ value: 0.5, low: 0, high: 1, n: 2 });
    expect(bootstrap([1, 1, 1], mean)).toEqual({ value: 1, low: 1, high: 1, n: 3 });
    const values = Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? 1 : 0));
    const once = bootstrap(values, mean)!;
    expect(bootstrap(values, mean)).toEqual(once);
    // Normal approximation for p = 0.25, n = 200: 0.25 ± 1.96 × 0.0306, about [0.19, 0.31].
    expect(once.value).toBe(0.25);
    expect(once.low).toBeGreaterThan(0.17);
    expect(once.low).toBeLessThan(0.21);
    expect(once.high).toBeGreaterThan(0.29);
    expect(once.high).toBeLessThan(0.33);
    expect(bootstrap([], mean)).toBeNull();
  });

  it('are also given per language and per tag', () => {
    const groups = summarizeGroups([
      outcome({ expected: [{ document: 'a' }], language: 'de', tags: ['x', 'y'] }, [passage('a', 1)]),
      outcome({ expected: [{ document: 'a' }], language: 'en', tags: ['x'] }, [passage('b', 1)]),
    ]);
    expect(Object.keys(groups.languages)).toEqual(['de', 'en']);
    expect(groups.languages.de?.hitAt1?.value).toBe(1);
    expect(groups.tags.x?.hitAt1).toMatchObject({ value: 0.5, n: 2 });
    expect(groups.tags.y?.hitAt1).toMatchObject({ value: 1, n: 1 });
  });
});
