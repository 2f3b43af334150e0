import { describe, expect, it } from 'vitest';
import { DocumentFailure } from '../../src/errors.js';
import { parseBytes } from '../../src/parsing/parse.js';
import { makeDocxBody, makeEpub, makeOdf } from '../support/fixtures.js';

/**
 * Documents whose elements nest far deeper than any real one (issue 44, finding 13): they fail as
 * documents, with a code and a reason, instead of overflowing the parser's stack; documents nested
 * just within the limit are still read whole.
 */

const DEEP = 100_000;
/** MAX_NESTING_DEPTH, which the message names. */
const LIMIT = 500;
const nested = (open: string, close: string, times: number, inner: string) =>
  open.repeat(times) + inner + close.repeat(times);
const WORDS = '<w:p><w:r><w:t>Deep inside the tables.</w:t></w:r></w:p>';

async function failure(p: Promise<unknown>): Promise<DocumentFailure> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DocumentFailure) return err;
    throw err;
  }
  throw new Error('expected a DocumentFailure');
}
const TOO_DEEP = {
  code: 'corrupt_document',
  message: 'The document is nested too deeply: it has elements more than 500 levels inside one another.',
};

describe('deeply nested documents', () => {
  it('fail an HTML page of 100,000 nested elements as nested too deeply', async () => {
    const html = `<html><body>${nested('<div>', '</div>', DEEP, 'Deep inside the page.')}</body></html>`;
    expect(await failure(parseBytes(Buffer.from(html), 'deep.html', 'text/html'))).toMatchObject(TOO_DEEP);
  });

  it('fail a Word document of 100,000 nested tables as nested too deeply', async () => {
    const docx = makeDocxBody(nested('<w:tbl><w:tr><w:tc>', '</w:tc></w:tr></w:tbl>', DEEP, WORDS));
    expect(await failure(parseBytes(docx, 'deep.docx', null))).toMatchObject(TOO_DEEP);
  });

  it('fail other markup the same way: an OpenDocument text, an e-book chapter, a Markdown line', async () => {
    const odt = makeOdf('text', nested('<text:section>', '</text:section>', DEEP, '<text:p>Deep.</text:p>'));
    const epub = makeEpub('Deep', [{ file: 'c1.xhtml', html: nested('<div>', '</div>', DEEP, 'Deep.') }]);
    const markdown = Buffer.from(`# Deep\n\nA line ${nested('<b>', '</b>', DEEP, 'of bold')}.\n`);
    for (const [file, name] of [
      [odt, 'deep.odt'],
      [epub, 'deep.epub'],
      [markdown, 'deep.md'],
    ] as const)
      expect(await failure(parseBytes(file, name, null)), name).toMatchObject(TOO_DEEP);
  });

  it('read documents nested just within the limit whole', async () => {
    // The deepest each converter goes per level: a cell's table in HTML (table, tr, td) and in Word
    // (w:tbl, w:tr, w:tc), both under their page's own few levels.
    const levels = Math.floor((LIMIT - 10) / 3);
    const html = `<html><body>${nested('<table><tr><td>', '</td></tr></table>', levels, 'Deep inside the page.')}</body></html>`;
    expect((await parseBytes(Buffer.from(html), 'deep.html', 'text/html')).text).toContain(
      'Deep inside the page.',
    );
    const docx = makeDocxBody(nested('<w:tbl><w:tr><w:tc>', '</w:tc></w:tr></w:tbl>', levels, WORDS));
    expect((await parseBytes(docx, 'deep.docx', null)).text).toContain('Deep inside the tables.');
    const odt = makeOdf(
      'text',
      nested('<text:section>', '</text:section>', LIMIT - 10, '<text:p>Deep.</text:p>'),
    );
    expect((await parseBytes(odt, 'deep.odt', null)).text).toBe('Deep.');
  });
});
