import { describe, expect, it } from 'vitest';
import { composeExtractiveAnswer } from '../../src/answers/extractive.js';
import type { SearchHit } from '../../src/domain/types.js';
import { parseBytes } from '../../src/parsing/parse.js';
import { chunkText } from '../../src/processing/chunker.js';
import { Question } from '../../src/search/question.js';

/** A passage of a parsed document as search returns it: its text and where it lies in the document. */
function hitOf(documentId: string, text: string, charStart: number): SearchHit {
  return {
    text,
    score: 1,
    citation: {
      documentId,
      filename: `${documentId}.html`,
      sourceUrl: null,
      mediaType: 'text/html',
      page: null,
      pageEnd: null,
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

const parse = (buf: Buffer, name: string) => parseBytes(buf, name, null);

const page = (body: string) =>
  Buffer.from(`<!doctype html><html><head><title>Limits</title></head><body>${body}</body></html>`);

describe('tables keep their header (issue 41)', () => {
  const limits = page(`<h1>Limits</h1>
    <p>Applications that run SQL from untrusted sources should lower these limits.</p>
    <table>
      <tr><th>Limit Setting</th><th>Default Value</th><th>High-security Value</th></tr>
      <tr><td>LIMIT_LENGTH</td><td>1,000,000,000</td><td>1,000,000</td></tr>
      <tr><td>LIMIT_ATTACH</td><td>10</td><td>0</td></tr>
      <tr><td>LIMIT_TRIGGER_DEPTH</td><td>1,000</td><td>10</td></tr>
    </table>`);

  it('answers with the row, quoted with its header, and cites exactly that row', async () => {
    const doc = await parse(limits, 'security.html');
    const [chunk] = chunkText(doc.text, 'doc_l');
    const a = composeExtractiveAnswer(new Question('What is the high-security value of LIMIT_ATTACH?'), [
      hitOf('doc_l', chunk!.text, chunk!.charStart),
    ]);
    expect(a.kind).toBe('extractive');
    expect(a.answer).toBe('Limit Setting: LIMIT_ATTACH; Default Value: 10; High-security Value: 0 [1]');
    const c = a.citations[0]!;
    // The citation's offsets are the row's own line in the document's text, pipes and all.
    expect(doc.text.slice(c.charStart, c.charEnd)).toBe('| LIMIT_ATTACH | 10 | 0 |');
  });

  it('keeps the first row of a table without header cells as a row of data', async () => {
    const doc = await parse(
      page(`<h1>strftime</h1><p>The format string of strftime takes these substitutions.</p><table><tr><td>%d</td><td>day of month: 00</td></tr>
        <tr><td>%j</td><td>day of year: 001-366</td></tr></table>`),
      'date.html',
    );
    expect(doc.text).toContain(
      '|  |  |\n| --- | --- |\n| %d | day of month: 00 |\n| %j | day of year: 001-366 |',
    );
    const [chunk] = chunkText(doc.text, 'doc_d');
    const a = composeExtractiveAnswer(new Question('Which strftime substitution gives the day of month?'), [
      hitOf('doc_d', chunk!.text, chunk!.charStart),
    ]);
    // Before, "%d" was taken for a header and every row read "%d: %j; day of month: 00: day of year…".
    expect(a.answer).toContain('%d; day of month: 00 [1]');
    expect(a.answer).not.toContain('%j');
    expect(doc.text.slice(a.citations[0]!.charStart, a.citations[0]!.charEnd)).toContain(
      '| %d | day of month: 00 |',
    );
  });

  it('merges two rows of header cells into one header, column by column', async () => {
    const doc = await parse(
      page(`<table>
        <tr><th rowspan="2">SQLITE_DQS</th><th colspan="2">Double-Quoted Strings Allowed</th><th rowspan="2">Remarks</th></tr>
        <tr><th>In DDL</th><th>In DML</th></tr>
        <tr><td>3</td><td>yes</td><td>yes</td><td>default</td></tr>
        <tr><td>0</td><td>no</td><td>no</td><td>recommended</td></tr></table>`),
      'compile.html',
    );
    expect(doc.text).toContain(
      '| SQLITE_DQS | Double-Quoted Strings Allowed In DDL | Double-Quoted Strings Allowed In DML | Remarks |\n| --- | --- | --- | --- |\n| 3 | yes | yes | default |',
    );
    const [chunk] = chunkText(doc.text, 'doc_c');
    const a = composeExtractiveAnswer(new Question('Which SQLITE_DQS value is recommended?'), [
      hitOf('doc_c', chunk!.text, chunk!.charStart),
    ]);
    expect(a.answer).toContain('SQLITE_DQS: 0;');
    expect(a.answer).toContain('Remarks: recommended');
  });
});
