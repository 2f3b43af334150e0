import { describe, expect, it } from 'vitest';
import { composeExtractiveAnswer } from '../../../service/src/answers/extractive.js';
import type { SearchHit } from '../../../service/src/domain/types.js';
import { Question } from '../../../service/src/search/question.js';
import { quotesIn } from '../../src/lib/answers.js';

function hit(n: number, text: string): SearchHit {
  return {
    text,
    score: 1,
    citation: {
      documentId: `doc_${n}`,
      filename: `file${n}.md`,
      sourceUrl: null,
      mediaType: 'text/markdown',
      page: null,
      pageEnd: null,
      charStart: 0,
      charEnd: text.length,
      chunkId: `doc_${n}:0`,
      headingPath: [],
      score: 1,
      source: null,
      sourceItem: null,
      version: 1,
    },
  };
}

const hits = [
  hit(1, 'Every employee receives 25 days of paid vacation per year. Ask HR.'),
  hit(2, 'Unused vacation days can be carried over until March [2] of the next year.'),
  hit(3, '| Plan | Days |\n| --- | --- |\n| Senior staff | 30 days of vacation |\n'),
];

describe("an extractive answer's quotes", () => {
  it("are the service's extractive answers, quote by quote", () => {
    for (const q of [
      'How many vacation days does an employee receive per year?',
      'vacation days carried over until March and employee paid vacation per year',
      'How many vacation days do senior staff get?',
    ]) {
      const a = composeExtractiveAnswer(new Question(q), hits);
      expect(a.kind).toBe('extractive');
      const quotes = quotesIn(a.answer);
      expect(quotes.flatMap((x) => x.ns)).toEqual(a.citations.map((c) => c.n));
      // The quotes, each with its marker, are the whole answer.
      expect(quotes.map((x) => `${x.text} ${x.ns.map((n) => `[${n}]`).join('')}`).join(' ')).toBe(a.answer);
    }
    const carried = composeExtractiveAnswer(
      new Question('Until when can unused vacation days be carried over?'),
      hits,
    );
    expect(quotesIn(carried.answer)[0]?.text).toContain('until March (2) of');
  });

  it('keeps two markers after one quote with that quote', () => {
    expect(quotesIn('Alpha beta. [1][2] Gamma. [3]')).toEqual([
      { text: 'Alpha beta.', ns: [1, 2] },
      { text: 'Gamma.', ns: [3] },
    ]);
  });
});
