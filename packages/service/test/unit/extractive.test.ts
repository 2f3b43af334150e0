import { describe, expect, it } from 'vitest';
import { composeExtractiveAnswer, NOT_FOUND_ANSWER } from '../../src/answers/extractive.js';
import type { SearchHit } from '../../src/domain/types.js';
import { Question } from '../../src/search/question.js';

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
      source: null,
      sourceItem: null,
      version: 1,
    },
  };
}

describe('composeExtractiveAnswer', () => {
  const hits = [
    hit('doc_a', 'The warranty covers parts for two years. Labour is not covered after the first year.'),
    hit('doc_b', 'Returns are accepted within 30 days of purchase with a receipt.'),
  ];

  it('answers with the sentence that covers the question and cites it', () => {
    const a = composeExtractiveAnswer(new Question('How long does the warranty cover parts?'), hits);
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
    const a = composeExtractiveAnswer(new Question('warranty parts years and returns within days'), hits);
    const markers = [...a.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(new Set(markers)).toEqual(new Set([1, 2]));
    for (const n of markers) expect(a.citations.find((c) => c.n === n)).toBeDefined();
    expect(a.citations.map((c) => c.documentId).sort()).toEqual(['doc_a', 'doc_b']);
  });

  it('says so instead of answering when the passages do not cover the question', () => {
    const a = composeExtractiveAnswer(new Question('What colour is the company logo?'), hits);
    expect(a).toMatchObject({ answer: NOT_FOUND_ANSWER, citations: [], kind: 'declined' });
    expect(composeExtractiveAnswer(new Question('anything'), [])).toEqual({
      answer: NOT_FOUND_ANSWER,
      citations: [],
      kind: 'declined',
    });
  });

  it('never writes words that are not in the passages', () => {
    const a = composeExtractiveAnswer(new Question('Are returns accepted with a receipt?'), hits);
    const quoted = a.answer.replace(/\s*\[\d+\]/g, '');
    expect(hits.some((h) => h.text.includes(quoted))).toBe(true);
  });

  it('answers from the sentence right under a heading line (issue 16: it was skipped as part of the heading)', () => {
    const boats = hit('doc_md', '# Boats\nThe ferry to Lanmore leaves at nine.');
    const a = composeExtractiveAnswer(new Question('When does the ferry to Lanmore leave?'), [boats]);
    expect(a.answer).toBe('The ferry to Lanmore leaves at nine. [1]');
    expect(boats.text.slice(a.citations[0]!.charStart - 100, a.citations[0]!.charEnd - 100)).toBe(
      'The ferry to Lanmore leaves at nine.',
    );
  });

  it('never quotes a heading, and quotes one passage once, as consecutive sentences', () => {
    const h = [
      hit(
        'doc_h',
        '# Warranty parts\n\nThe warranty covers parts. It covers parts for two years. Parts are covered worldwide.',
      ),
    ];
    const a = composeExtractiveAnswer(new Question('warranty parts years worldwide'), h);
    expect(a.answer).not.toContain('Warranty parts [');
    expect(a.citations).toHaveLength(1);
    // The quote is a span of the passage: its offsets cover exactly the sentences it quotes.
    const c = a.citations[0]!;
    expect(h[0]!.text.slice(c.charStart - 100, c.charEnd - 100).replace(/\s+/g, ' ')).toBe(c.text);
    expect(c.text).toContain('two years');
  });

  it('quotes the sentence after a lead when the question asks for a value the lead lacks', () => {
    const work = hit(
      'doc_pg',
      'work_mem: Sets the base maximum amount of memory to be used by a query operation before writing to temporary disk files. The default value is four megabytes (4MB). Several running sessions could be doing such operations concurrently.',
    );
    const a = composeExtractiveAnswer(
      new Question('What is the default amount of memory for a query operation?'),
      [work],
    );
    expect(a.answer).toContain('The default value is four megabytes (4MB).');
    expect(a.answer).toContain('Sets the base maximum amount of memory');
  });

  it('reads a table row with its column names', () => {
    const table = hit(
      'doc_t',
      'Numeric types:\n\n| Name | Storage Size | Description |\n| --- | --- | --- |\n| smallint | 2 bytes | small-range integer |\n| bigint | 8 bytes | large-range integer |',
    );
    const a = composeExtractiveAnswer(new Question('What is the storage size of a bigint?'), [table]);
    expect(a.answer).toBe('Name: bigint; Storage Size: 8 bytes; Description: large-range integer [1]');
  });

  it('quotes the sentence a pronoun points back to, and a command after a colon', () => {
    const sticky = hit(
      'doc_s',
      'The sticky bit is a permission that is only useful in directories. It restricts deletion of files so that only their owner can delete them in a directory everyone can write to. Other bits exist.',
    );
    const a = composeExtractiveAnswer(
      new Question('How do I restrict deletion of files in a directory everyone can write to?'),
      [sticky],
    );
    expect(a.answer).toContain('The sticky bit is a permission');
    const nfs = hit(
      'doc_n',
      'Once the file has been edited, the NFS server must be told to read the list of exports again with the following command:\n\n```\n# exportfs -ra\n```\n\nClients see the change at once.',
    );
    const b = composeExtractiveAnswer(
      new Question('How do I make the NFS server read the list of exports again?'),
      [nfs],
    );
    expect(b.answer).toContain('# exportfs -ra');
  });

  it('answers a why-question with the sentence before the one restating it, which gives the reason', () => {
    const gif = hit(
      'doc_g',
      'Many image formats are supported. The Lempel-Ziv-Welch (LZW) lossless data compression patent has expired. Graphics Interchange Format (GIF) utilities which use the LZW compression method are now freely available on the Debian system.',
    );
    const why = composeExtractiveAnswer(
      new Question('Why are GIF tools freely available in Debian nowadays?'),
      [gif],
    );
    expect(why.answer).toContain('patent has expired. Graphics Interchange Format (GIF) utilities');
    // Asked which, not why: the sentence alone.
    const which = composeExtractiveAnswer(
      new Question('Which GIF utilities are freely available in Debian?'),
      [gif],
    );
    expect(which.answer).toContain('GIF) utilities which use the LZW');
    expect(which.answer).not.toContain('patent');
  });

  it('declines a question that names something no passage and no dictionary knows', () => {
    const lexicon = {
      isWord: (w: string) => ['set', 'tunnel', 'server', 'servers', 'two', 'between'].includes(w),
      isNounOnly: () => false,
    };
    const vpn = hit(
      'doc_v',
      'To set up a tunnel between two servers, the OpenVPN package provides everything needed.',
    );
    const asked = 'How do I set up a WireGuard tunnel between two servers?';
    expect(composeExtractiveAnswer(new Question(asked), [vpn]).answer).not.toBe(NOT_FOUND_ANSWER);
    expect(composeExtractiveAnswer(new Question(asked, { lexicon }), [vpn])).toMatchObject({
      answer: NOT_FOUND_ANSWER,
      citations: [],
      kind: 'declined',
    });
    // Named in a passage: answered; and so is a name typed with a typo or without its accents.
    const wg = hit('doc_w', 'A WireGuard tunnel between two servers is set up with wg-quick.');
    expect(composeExtractiveAnswer(new Question(asked, { lexicon }), [wg]).answer).toContain('wg-quick');
    const typo = 'How do I set up a WireGaurd tunnel between two servers?';
    expect(composeExtractiveAnswer(new Question(typo, { lexicon }), [wg]).answer).toContain('wg-quick');
    const town = hit('doc_g', 'His father was a priest in Gospić, a town of the Lika region.');
    const where = composeExtractiveAnswer(new Question('What was his father in Gospic?', { lexicon }), [
      town,
    ]);
    expect(where.answer).toContain('priest');
  });

  it('draws on another source that covers the question nearly as well', () => {
    const h = [
      hit('doc_a', 'The library opens at nine on weekdays.'),
      hit('doc_b', 'On weekdays the library opens at nine, on Saturdays at ten.'),
      hit('doc_c', 'The cafeteria closes at three.'),
    ];
    const a = composeExtractiveAnswer(new Question('When does the library open on weekdays?'), h);
    expect(a.citations.map((c) => c.documentId)).toEqual(['doc_a', 'doc_b']);
  });
});
