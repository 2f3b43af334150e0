import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DocumentFailure } from '../../src/errors.js';
import { detectFormat } from '../../src/parsing/detect.js';
import { parseBytes } from '../../src/parsing/parse.js';
import { decodeText } from '../../src/parsing/text-decoding.js';
import { listZipEntries } from '../../src/parsing/zip.js';
import { makeDocx, makePdf, makeZip } from '../support/fixtures.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const parse = (buf: Buffer, name: string, type: string | null = null) => parseBytes(buf, name, type);

async function failure(p: Promise<unknown>): Promise<DocumentFailure> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DocumentFailure) return err;
    throw err;
  }
  throw new Error('expected a DocumentFailure');
}

describe('format detection', () => {
  it('trusts the content over the name and the declared type', () => {
    const pdf = makePdf(['hello']);
    expect(detectFormat(pdf, 'notes.txt', 'text/plain').format).toBe('pdf');
    expect(detectFormat(makeDocx(['Hi']), 'report.pdf', 'application/pdf').format).toBe('docx');
    expect(detectFormat(Buffer.from('<!doctype html><p>x</p>'), 'a.md', 'text/markdown').format).toBe('html');
    expect(detectFormat(Buffer.from('{"a": 1}'), 'data.txt', null).format).toBe('json');
  });

  it('uses the name only to tell text formats apart', () => {
    expect(detectFormat(Buffer.from('# Title\n\nText'), 'readme.md', null).format).toBe('markdown');
    expect(detectFormat(Buffer.from('a,b\n1,2'), 'table.csv', null).format).toBe('csv');
    expect(detectFormat(Buffer.from('a\tb\n1\t2'), 'table.tsv', null).format).toBe('tsv');
    expect(detectFormat(Buffer.from('plain words'), 'notes', null).format).toBe('text');
  });

  it('recognises office containers, images and binaries by their bytes', () => {
    const pptx = makeZip([
      { name: '[Content_Types].xml', data: '<x/>' },
      { name: 'ppt/presentation.xml', data: '<p/>' },
    ]);
    expect(detectFormat(pptx, 'deck.docx', null).format).toBe('pptx');
    const odt = makeZip([{ name: 'mimetype', data: 'application/vnd.oasis.opendocument.text' }]);
    expect(detectFormat(odt, 'doc.zip', null).format).toBe('odt');
    expect(detectFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), 'scan.pdf', null).format).toBe(
      'image',
    );
    expect(
      detectFormat(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0]), 'old.doc', null).format,
    ).toBe('legacy-office');
    const random = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    expect(detectFormat(random, 'file.pdf', 'application/pdf').format).toBe('binary');
  });

  it('lists zip entries from the central directory', () => {
    const zip = makeZip([
      { name: 'a.txt', data: 'aaa' },
      { name: 'dir/b.xml', data: '<b/>' },
    ]);
    expect(listZipEntries(zip)?.map((e) => [e.name, e.uncompressedSize])).toEqual([
      ['a.txt', 3],
      ['dir/b.xml', 4],
    ]);
    expect(listZipEntries(Buffer.from('PK\x03\x04 not really a zip'))).toBeUndefined();
  });
});

describe('text decoding', () => {
  it('reads UTF-8, UTF-16 with BOM and falls back to Windows-1252', () => {
    expect(decodeText(Buffer.from('héllo wörld', 'utf8')).text).toBe('héllo wörld');
    expect(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo', 'utf16le')])).text).toBe(
      'héllo',
    );
    const be = Buffer.from('hé', 'utf16le').swap16();
    expect(decodeText(Buffer.concat([Buffer.from([0xfe, 0xff]), be])).text).toBe('hé');
    expect(decodeText(Buffer.from([0x63, 0x61, 0x66, 0xe9])).text).toBe('café');
  });
});

describe('parsing', () => {
  it('extracts PDF text per page with page markers', async () => {
    const doc = await parse(makePdf(['First page about apples.', 'Second page about pears.']), 'fruit.pdf');
    expect(doc.mediaType).toBe('application/pdf');
    expect(doc.pageCount).toBe(2);
    expect(doc.text).toMatch(
      /^<!-- page 1 -->\n\nFirst page about apples\.\n\n<!-- page 2 -->\n\nSecond page about pears\.$/,
    );
  });

  it('turns DOCX headings and paragraphs into Markdown', async () => {
    const doc = await parse(
      makeDocx(['# Policy', 'All staff must badge in.', '## Visitors', 'Visitors sign the log.']),
      'p.docx',
    );
    expect(doc.text).toBe('# Policy\n\nAll staff must badge in.\n\n## Visitors\n\nVisitors sign the log.');
  });

  it('keeps the main content of HTML with its headings, lists and tables', async () => {
    const html = `<!doctype html><html><head><title>Guide</title><script>var x=1</script></head><body>
      <nav><a href="/">Home</a></nav>
      <h1>Install guide</h1><p>Run the <a href="/setup">installer</a> first.</p>
      <ul><li>Step one</li><li>Step two</li></ul>
      <table><tr><th>Name</th><th>Size</th></tr><tr><td>core</td><td>12 MB</td></tr></table>
    </body></html>`;
    const doc = await parse(Buffer.from(html), 'guide.html');
    expect(doc.title).toBe('Guide');
    expect(doc.text).toContain('# Install guide');
    expect(doc.text).toContain('Run the installer first.');
    expect(doc.text).toContain('- Step one\n- Step two');
    expect(doc.text).toContain('| Name | Size |\n| --- | --- |\n| core | 12 MB |');
    expect(doc.text).not.toContain('var x');
  });

  it("parses an HTML fragment (no <html> or <body>, like a manual's *.part.html) as it parses a page", async () => {
    const fragment = await readFile(path.join(here, 'fixtures', 'backups.part.html'));
    const doc = await parse(fragment, 'backups.part.html');
    expect(doc.mediaType).toBe('text/html');
    expect(doc.text).toContain('## Backups');
    expect(doc.text).toContain('### Making a first backup');
    expect(doc.text).toContain('1. Open System and choose Backups');
    expect(doc.text).toContain('3. Press Create backup and wait');
    expect(doc.text).toContain('Note: an archive holds the passwords');
    expect(doc.text).toContain('- Restoring replaces the current data of the selected apps.');
    const page = await parse(
      Buffer.from(`<!doctype html><html><head><title>Backups</title></head><body>${fragment}</body></html>`),
      'backups.html',
    );
    expect(doc.text).toBe(page.text);
    // A fragment that starts with its title, or wraps itself in <html> alone, is a page too.
    const titled = await parse(Buffer.from(`<title>Backups</title>${fragment}`), 'b.html');
    expect(titled).toMatchObject({ title: 'Backups', text: page.text });
    expect((await parse(Buffer.from(`<html>${fragment}</html>`), 'c.html')).text).toBe(page.text);
  });

  it('renders CSV as a table and JSON as a fenced block', async () => {
    expect((await parse(Buffer.from('city,pop\nOslo,700000\n'), 'c.csv')).text).toBe(
      '| city | pop |\n| --- | --- |\n| Oslo | 700000 |',
    );
    expect((await parse(Buffer.from('{"a":[1,2]}'), 'j.json')).text).toBe(
      '```json\n{\n  "a": [\n    1,\n    2\n  ]\n}\n```',
    );
  });

  it('fails with a specific code for input it cannot use', async () => {
    expect((await failure(parse(Buffer.alloc(0), 'empty.txt'))).code).toBe('empty_document');
    expect((await failure(parse(Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2]), 'x.png'))).code).toBe(
      'needs_ocr',
    );
    const random = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    expect((await failure(parse(random, 'file.pdf', 'application/pdf'))).code).toBe('unsupported_media_type');
    const brokenPdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), random]);
    expect((await failure(parse(brokenPdf, 'broken.pdf'))).code).toBe('corrupt_document');
    const brokenDocx = makeZip([{ name: 'word/document.xml', data: '<not-closed' }]);
    expect((await failure(parse(brokenDocx, 'broken.docx'))).code).toBe('corrupt_document');
  });
});
