import { describe, expect, it } from 'vitest';
import { composeExtractiveAnswer } from '../../src/answers/extractive.js';
import { parseBytes } from '../../src/parsing/parse.js';
import { chunkText } from '../../src/processing/chunker.js';
import { Question } from '../../src/search/question.js';
import { searchHit } from '../support/hits.js';

/** A passage of a parsed document as search returns it: its text and where it lies in the document. */

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
      searchHit('doc_l', chunk!.text, { charStart: chunk!.charStart, extension: 'html' }),
    ]);
    expect(a.kind).toBe('extractive');
    expect(a.answer).toBe('Limit Setting: LIMIT_ATTACH; Default Value: 10; High-security Value: 0 [1]');
    const c = a.citations[0]!;
    // The citation's offsets are the row's own line in the document's text, pipes and all.
    expect(doc.text.slice(c.charStart, c.charEnd)).toBe('| LIMIT_ATTACH | 10 | 0 |');
  });
});
