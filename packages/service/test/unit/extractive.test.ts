import { describe, expect, it } from 'vitest';
import { composeExtractiveAnswer, NOT_FOUND_ANSWER } from '../../src/answers/extractive.js';
import type { SearchHit } from '../../src/domain/types.js';

function hit(documentId: string, text: string, charStart = 100, page: number | null = 3): SearchHit {
  return {
    text,
    score: 1,
    citation: {
      documentId,
      filename: `${documentId}.pdf`,
      sourceUrl: null,
      mediaType: 'application/pdf',
      page,
      pageEnd: page,
      charStart,
      charEnd: charStart + text.length,
      chunkId: `${documentId}:0`,
      headingPath: [],
      score: 1,
    },
  };
}

describe('composeExtractiveAnswer', () => {
  const hits = [
    hit('doc_a', 'The warranty covers parts for two years. Labour is not covered after the first year.'),
    hit('doc_b', 'Returns are accepted within 30 days of purchase with a receipt.'),
  ];

  it('answers with the sentence that covers the question and cites it', () => {
    const a = composeExtractiveAnswer('How long does the warranty cover parts?', hits);
    expect(a.answer).toBe('The warranty covers parts for two years. [1]');
    expect(a.citations).toHaveLength(1);
    const c = a.citations[0]!;
    expect(c).toMatchObject({
      n: 1,
      documentId: 'doc_a',
      page: 3,
      text: 'The warranty covers parts for two years.',
    });
    // Offsets narrow to the cited sentence within the document text.
    expect([c.charStart, c.charEnd]).toEqual([100, 100 + 'The warranty covers parts for two years.'.length]);
  });

  it('combines sentences from different passages and numbers every citation', () => {
    const a = composeExtractiveAnswer('warranty parts years and returns within days', hits);
    const markers = [...a.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(new Set(markers)).toEqual(new Set([1, 2]));
    for (const n of markers) expect(a.citations.find((c) => c.n === n)).toBeDefined();
    expect(a.citations.map((c) => c.documentId).sort()).toEqual(['doc_a', 'doc_b']);
  });

  it('says so instead of answering when the passages do not cover the question', () => {
    const a = composeExtractiveAnswer('What colour is the company logo?', hits);
    expect(a).toEqual({ answer: NOT_FOUND_ANSWER, citations: [] });
    expect(composeExtractiveAnswer('anything', [])).toEqual({ answer: NOT_FOUND_ANSWER, citations: [] });
  });

  it('never writes words that are not in the passages', () => {
    const a = composeExtractiveAnswer('Are returns accepted with a receipt?', hits);
    const quoted = a.answer.replace(/\s*\[\d+\]/g, '');
    expect(hits.some((h) => h.text.includes(quoted))).toBe(true);
  });

  it('answers from the sentence right under a heading line (issue 16: it was skipped as part of the heading)', () => {
    const boats = hit('doc_md', '# Boats\nThe ferry to Lanmore leaves at nine.');
    const a = composeExtractiveAnswer('When does the ferry to Lanmore leave?', [boats]);
    expect(a.answer).toBe('The ferry to Lanmore leaves at nine. [1]');
    expect(boats.text.slice(a.citations[0]!.charStart - 100, a.citations[0]!.charEnd - 100)).toBe(
      'The ferry to Lanmore leaves at nine.',
    );
  });

  it('never quotes a heading, and quotes at most two sentences of one passage', () => {
    const h = [
      hit(
        'doc_h',
        '# Warranty parts\n\nThe warranty covers parts. It covers parts for two years. Parts are covered worldwide.',
      ),
    ];
    const a = composeExtractiveAnswer('warranty parts years worldwide', h);
    expect(a.answer).not.toContain('Warranty parts [');
    expect(a.citations).toHaveLength(2);
    expect(a.citations.map((c) => c.n)).toEqual([1, 2]);
  });

  it('draws on another source that covers the question nearly as well', () => {
    const h = [
      hit('doc_a', 'The library opens at nine on weekdays.'),
      hit('doc_b', 'On weekdays the library opens at nine, on Saturdays at ten.'),
      hit('doc_c', 'The cafeteria closes at three.'),
    ];
    const a = composeExtractiveAnswer('When does the library open on weekdays?', h);
    expect(a.citations.map((c) => c.documentId)).toEqual(['doc_a', 'doc_b']);
  });
});
