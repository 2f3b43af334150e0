import { describe, expect, it } from 'vitest';
import type { IndexHit } from '../../src/domain/ports.js';
import { snippetOf } from '../../src/search/passages.js';
import { Question } from '../../src/search/question.js';
import { fuse, rescoreLexical, withDocumentEvidence } from '../../src/search/ranking.js';
import { wordCodes } from '../../src/search/word-codes.js';
import { ENGLISH } from '../../src/text/language.js';

const queryStems = (q: string) => new Set(ENGLISH.queryTerms(q));

const hit = (id: string, documentId: string, score: number, text = id): IndexHit => ({
  score,
  row: {
    id,
    documentId,
    ordinal: 0,
    text,
    headingPath: [],
    heading: '',
    filename: `${documentId}.txt`,
    sourceUrl: null,
    mediaType: 'text/plain',
    pageStart: null,
    pageEnd: null,
    charStart: 0,
    charEnd: text.length,
  },
});

describe('snippets', () => {
  const passage =
    'The office opens at eight. Parking is free for employees on weekends. Vacation requests go to the manager. The canteen serves lunch.';

  it('picks the sentences with most query words and marks each occurrence, with offsets', () => {
    const s = snippetOf(passage, 1000, queryStems('Where do vacation requests go?'), { maxChars: 60 });
    expect(s.text).toBe('Vacation requests go to the manager.');
    expect(s.charStart).toBe(1000 + passage.indexOf('Vacation requests'));
    expect(s.charEnd - s.charStart).toBe(s.text.length);
    const marked = s.highlights.map((h) => s.text.slice(h.start, h.end));
    expect(marked).toEqual(['Vacation', 'requests', 'go']);
  });

  it('matches inflected forms through stemming', () => {
    const s = snippetOf(passage, 0, queryStems('employee parks'), { maxChars: 200 });
    const marked = s.highlights.map((h) => s.text.slice(h.start, h.end));
    expect(marked).toEqual(expect.arrayContaining(['Parking', 'employees']));
  });

  it('cuts a sentence longer than the budget around the first query word', () => {
    const long = `${'filler words here '.repeat(30)}the badge policy applies ${'more words '.repeat(30)}`;
    const s = snippetOf(long, 0, queryStems('badge policy'), { maxChars: 120 });
    expect(s.text.length).toBeLessThanOrEqual(120);
    expect(s.text).toContain('badge policy');
    expect(long.slice(s.charStart, s.charEnd)).toBe(s.text);
  });

  it("are the same whether the passage's stored word codes or its words find the query's words", () => {
    const passages = [
      passage,
      'İstanbul’s ferries run daily. Ferry tickets cost less at night! Running late? The ferry waits.',
      'ΟΔΟΣ and δρόμος both mean road. Roads, ROADS and roading: the road ends here.',
      `${'Long sentence about nothing in particular with many words '.repeat(8)}then the ferry road.`,
    ];
    for (const text of passages) {
      for (const q of ['ferry road', 'running ferries', 'vacation requests', 'the', 'road ends here']) {
        for (const maxChars of [40, 120, 280]) {
          const plain = snippetOf(text, 7, queryStems(q), { maxChars });
          expect(
            snippetOf(text, 7, queryStems(q), { maxChars, codes: wordCodes(text) }),
            `${q} | ${text}`,
          ).toEqual(plain);
        }
      }
    }
    // Codes that do not belong to the text are not trusted.
    const s = snippetOf(passage, 0, queryStems('vacation'), { codes: wordCodes('vacation') });
    expect(s.highlights.map((h) => s.text.slice(h.start, h.end))).toEqual(['Vacation']);
  });
});

describe('duplicates, fusion and aggregation', () => {
  it('fuses two rankings by weighted reciprocal rank', () => {
    const lexical = [hit('a', 'd1', 9), hit('b', 'd2', 5)];
    const vector = [hit('b', 'd2', 0.9), hit('c', 'd3', 0.8)];
    const fused = fuse(lexical, vector, 0.5, 60);
    expect(fused.map((h) => h.row.id)).toEqual(['b', 'a', 'c']);
    expect(fused[0]!.score).toBeCloseTo(0.5 / 62 + 0.5 / 61, 10);
    expect(
      fuse(lexical, vector, 0, 60)
        .map((h) => h.row.id)
        .slice(0, 2),
    ).toEqual(['a', 'b']);
  });

  it('adds a share of a document’s other passages to each of its passages', () => {
    const hits = [hit('x', 'd1', 3), hit('y', 'd2', 2), hit('z', 'd2', 1.5)];
    const out = withDocumentEvidence(hits, 1);
    expect(out.map((h) => [h.row.id, h.score])).toEqual([
      ['y', 3.5],
      ['z', 3.5],
      ['x', 3],
    ]);
    expect(withDocumentEvidence(hits, 0)).toBe(hits);
  });

  it('ranks a passage that keeps adjacent query words close together first', () => {
    const rescored = rescoreLexical(
      [
        hit('far', 'd1', 1, 'risk of the thing and, much later, fracture'),
        hit('near', 'd2', 1, 'fracture risk'),
      ],
      new Question('fracture risk'),
      1,
      0,
    );
    expect(rescored[0]!.row.id).toBe('near');
  });
});
