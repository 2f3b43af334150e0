import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DocumentFailure } from '../../src/errors.js';
import { DEFAULT_PARSE_OPTIONS, parseBytes } from '../../src/parsing/parse.js';
import { listZipEntries, openZip } from '../../src/parsing/zip.js';
import { blocksOf } from '../../src/processing/chunker.js';
import {
  makeCjkPdf,
  makeDocx,
  makeEpub,
  makeOdf,
  makePdf,
  makePptx,
  makeXlsx,
  makeZip,
} from '../support/fixtures.js';

const parse = (buf: Buffer | string, name: string, type: string | null = null) =>
  parseBytes(typeof buf === 'string' ? Buffer.from(buf) : buf, name, type);

async function failure(p: Promise<unknown>): Promise<DocumentFailure> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DocumentFailure) return err;
    throw err;
  }
  throw new Error('expected a DocumentFailure');
}

describe('presentations', () => {
  it('renders a PPTX as one page per slide, in presentation order, with titles, bullets and tables', async () => {
    const doc = await parse(
      makePptx([
        { title: 'Quarterly results', bullets: ['Revenue grew', 'Costs fell'] },
        {
          title: 'By region',
          table: [
            ['Region', 'Sales'],
            ['North', '120'],
            ['South', '95'],
          ],
        },
      ]),
      'deck.pptx',
    );
    expect(doc.mediaType).toBe('application/vnd.openxmlformats-officedocument.presentationml.presentation');
    expect(doc.pageCount).toBe(2);
    expect(doc.title).toBe('Quarterly results');
    expect(doc.text).toBe(
      [
        '<!-- page 1 -->',
        '# Quarterly results',
        '- Revenue grew\n- Costs fell',
        '<!-- page 2 -->',
        '# By region',
        '| Region | Sales |\n| --- | --- |\n| North | 120 |\n| South | 95 |',
      ].join('\n\n'),
    );
    // The chunker reads the slide numbers as pages.
    expect(blocksOf(doc.text).find((b) => b.kind === 'table')?.page).toBe(2);
  });

  it('repeats a merged table cell over the cells it covers', async () => {
    const doc = await parse(
      makePptx([
        {
          title: 'Merged',
          table: [
            ['', 'Q1', { merged: 'h' }],
            ['North', '10', '12'],
            [{ merged: 'v' }, '11', '13'],
          ],
        },
      ]),
      'merged.pptx',
    );
    expect(doc.text).toContain(
      '|  | Q1 | Q1 |\n| --- | --- | --- |\n| North | 10 | 12 |\n| North | 11 | 13 |',
    );
  });

  it('renders an ODP slide per page', async () => {
    const body =
      '<draw:page><draw:frame presentation:class="title"><draw:text-box><text:p>Roadmap</text:p></draw:text-box></draw:frame>' +
      '<draw:frame><draw:text-box><text:p>Ship the sandbox</text:p></draw:text-box></draw:frame></draw:page>' +
      '<draw:page><draw:frame><draw:text-box><text:p>Questions?</text:p></draw:text-box></draw:frame></draw:page>';
    const doc = await parse(makeOdf('presentation', body), 'talk.odp');
    expect(doc.text).toBe(
      '<!-- page 1 -->\n\n# Roadmap\n\nShip the sandbox\n\n<!-- page 2 -->\n\nQuestions?',
    );
  });
});

describe('spreadsheets', () => {
  it('renders each XLSX sheet as a heading and its ranges as tables', async () => {
    const doc = await parse(
      makeXlsx([
        {
          name: 'Budget',
          rows: [['Item', 'Cost'], ['Desks', 1200], ['Chairs', 800], [], [null, 'Total', 2000]],
        },
        { name: 'Notes', rows: [['Approved by finance']] },
      ]),
      'budget.xlsx',
    );
    expect(doc.text).toBe(
      [
        '## Budget',
        '| Item | Cost |\n| --- | --- |\n| Desks | 1200 |\n| Chairs | 800 |',
        '| Total | 2000 |\n| --- | --- |',
        '## Notes',
        '| Approved by finance |\n| --- |',
      ].join('\n\n'),
    );
  });

  it('renders ODS sheets, without materialising a million repeated empty cells', async () => {
    const body =
      '<table:table table:name="Stock"><table:table-row><table:table-cell><text:p>Part</text:p></table:table-cell>' +
      '<table:table-cell><text:p>Count</text:p></table:table-cell><table:table-cell table:number-columns-repeated="16382"/></table:table-row>' +
      '<table:table-row><table:table-cell><text:p>Bolt</text:p></table:table-cell><table:table-cell><text:p>40</text:p></table:table-cell></table:table-row>' +
      '<table:table-row table:number-rows-repeated="1048574"><table:table-cell table:number-columns-repeated="16384"/></table:table-row></table:table>';
    const doc = await parse(makeOdf('spreadsheet', body), 'stock.ods');
    expect(doc.text).toBe('## Stock\n\n| Part | Count |\n| --- | --- |\n| Bolt | 40 |');
  });

  it('renders CSV and TSV with the first row as header', async () => {
    expect((await parse('a\tb\n1\t2\n', 't.tsv')).text).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
  });
});

describe('documents', () => {
  it('renders ODT headings, paragraphs, lists and tables', async () => {
    const body =
      '<text:h text:outline-level="1">Handbook</text:h><text:p>Welcome<text:s text:c="2"/>aboard.</text:p>' +
      '<text:list><text:list-item><text:p>Badge</text:p></text:list-item><text:list-item><text:p>Laptop</text:p></text:list-item></text:list>' +
      '<table:table><table:table-row><table:table-cell><text:p>Day</text:p></table:table-cell><table:table-cell><text:p>Task</text:p></table:table-cell></table:table-row>' +
      '<table:table-row><table:table-cell><text:p>Mon</text:p></table:table-cell><table:table-cell><text:p>Setup</text:p></table:table-cell></table:table-row></table:table>';
    const doc = await parse(makeOdf('text', body), 'handbook.odt');
    expect(doc.text).toBe(
      '# Handbook\n\nWelcome aboard.\n\n- Badge\n- Laptop\n\n| Day | Task |\n| --- | --- |\n| Mon | Setup |',
    );
  });

  it('renders an EPUB in spine order with its title', async () => {
    const doc = await parse(
      makeEpub('The Duck Book', [
        { file: 'one.xhtml', html: '<h1>Chapter 1</h1><p>Ducks swim.</p>' },
        { file: 'two.xhtml', html: '<h1>Chapter 2</h1><p>Ducks fly &amp; quack.</p>' },
      ]),
      'ducks.epub',
    );
    expect(doc.title).toBe('The Duck Book');
    expect(doc.text).toBe('# Chapter 1\n\nDucks swim.\n\n# Chapter 2\n\nDucks fly & quack.');
  });

  it('renders RTF paragraphs, code-page and Unicode text, and tables', async () => {
    const rtf =
      '{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0 Arial;}}{\\*\\generator Writer;}' +
      "\\pard Caf\\'e9 menu\\par Price in \\u8364? euros\\par" +
      '\\trowd\\cellx1000\\cellx2000\\intbl Dish\\cell Price\\cell\\row\\intbl Soup\\cell 4\\cell\\row\\pard After the table.\\par}';
    const doc = await parse(rtf, 'menu.rtf');
    expect(doc.mediaType).toBe('application/rtf');
    expect(doc.text).toBe(
      'Café menu\n\nPrice in € euros\n\n| Dish | Price |\n| --- | --- |\n| Soup | 4 |\n\nAfter the table.',
    );
  });

  it('renders an e-mail with its headers and body, listing attachments it does not index', async () => {
    const eml = [
      'From: Ada <ada@example.com>',
      'To: team@example.com',
      'Subject: =?UTF-8?B?UXVhcnRlcmx5IHLDqXN1bHRz?=',
      'Date: Mon, 3 Mar 2025 10:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Revenue rose 12 % this quarter =E2=80=94 details attached.',
      '--b1',
      'Content-Type: application/pdf; name="report.pdf"',
      'Content-Disposition: attachment; filename="report.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('%PDF-1.4 pretend').toString('base64'),
      '--b1--',
      '',
    ].join('\r\n');
    const doc = await parse(eml, 'mail.eml');
    expect(doc.mediaType).toBe('message/rfc822');
    expect(doc.title).toBe('Quarterly résults');
    expect(doc.text).toBe(
      [
        '# Quarterly résults',
        'From: Ada <ada@example.com>\nTo: team@example.com\nDate: Mon, 3 Mar 2025 10:00:00 +0000',
        'Revenue rose 12 % this quarter — details attached.',
        '## Attachments',
        '- report.pdf (application/pdf, 16 B): not indexed with this message; upload it on its own to search it.',
      ].join('\n\n'),
    );
  });

  it('keeps Markdown, converting raw HTML blocks and dropping comments and link targets', async () => {
    const md = [
      '# Guide',
      '',
      'See [the docs](https://example.com/docs) &amp; more.',
      '',
      '<!-- page 7 -->',
      '',
      '<table><tr><th>Key</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>',
      '',
      '```',
      '&amp; stays in code',
      '```',
    ].join('\n');
    const doc = await parse(md, 'guide.md');
    expect(doc.text).toBe(
      '# Guide\n\nSee the docs & more.\n\n| Key | Value |\n| --- | --- |\n| a | 1 |\n\n```\n&amp; stays in code\n```',
    );
  });

  it('never lets text pose as a page marker', async () => {
    const doc = await parse('Intro\n<!-- page 9 -->\nOutro', 'notes.txt');
    expect(doc.text).toBe('Intro\n&lt;!-- page 9 -->\nOutro');
    expect(blocksOf(doc.text).every((b) => b.page === null)).toBe(true);
  });
});

describe('DOCX', () => {
  it('keeps equations as LaTeX, inline and on their own line', async () => {
    const M = 'http://schemas.openxmlformats.org/officeDocument/2006/math';
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const r = (t: string) => `<m:r><m:t>${t}</m:t></m:r>`;
    const body =
      `<w:p><w:r><w:t xml:space="preserve">Area: </w:t></w:r><m:oMath>${r('A=π')}<m:sSup><m:e>${r('r')}</m:e><m:sup>${r('2')}</m:sup></m:sSup></m:oMath></w:p>` +
      `<w:p><m:oMathPara><m:oMath><m:f><m:num>${r('a')}</m:num><m:den><m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/><m:e>${r('b')}</m:e></m:rad></m:den></m:f></m:oMath></m:oMathPara></w:p>`;
    const base = makeDocx(['x']);
    const original = openZip(base, 1e6);
    const docx = makeZip(
      listZipEntries(base)!.map((e) => ({
        name: e.name,
        data:
          e.name === 'word/document.xml'
            ? `<?xml version="1.0"?><w:document xmlns:w="${W}" xmlns:m="${M}"><w:body>${body}</w:body></w:document>`
            : original.read(e.name)!,
      })),
    );
    expect((await parse(docx, 'math.docx')).text).toBe('Area: $A=\\pi r^{2}$\n\n$$\\frac{a}{\\sqrt{b}}$$');
  });
});

describe('PDF', () => {
  it('decodes CJK text that only the packaged character maps can map to Unicode', async () => {
    const doc = await parse(makeCjkPdf('한글 문서 검색'), 'korean.pdf');
    expect(doc.text).toBe('<!-- page 1 -->\n\n한글 문서 검색');
  });

  it('treats a page with a few letters as text, and one with none as a scan', async () => {
    expect((await parse(makePdf(['Agenda']), 'cover.pdf')).text).toBe('<!-- page 1 -->\n\nAgenda');
    expect((await failure(parse(makePdf(['-- • --']), 'blank.pdf'))).code).toBe('needs_ocr');
  });
});

describe('what the default worker does not do', () => {
  it('marks images needs_ocr and names the full worker', async () => {
    const f = await failure(parse(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]), 'photo.jpg'));
    expect(f.code).toBe('needs_ocr');
    expect(f.message).toMatch(/WORKER_PROFILE=full/);
  });

  it('refuses legacy Office files with a clear reason, and encrypted Office files as encrypted', async () => {
    const ole = (stream: string) =>
      Buffer.concat([
        Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
        Buffer.alloc(504),
        Buffer.from(stream, 'utf16le'),
      ]);
    const doc = await failure(parse(ole('WordDocument'), 'old.doc'));
    expect([doc.code, doc.message]).toEqual([
      'unsupported_media_type',
      'The content is a legacy Office file (.doc); it is converted only by the full worker (WORKER_PROFILE=full). Save it as .docx to have it parsed here.',
    ]);
    expect((await failure(parse(ole('Workbook'), 'old.xls'))).message).toMatch(/\(\.xls\)/);
    expect((await failure(parse(ole('EncryptedPackage'), 'secret.docx'))).code).toBe('encrypted_document');
  });
});

describe('zip containers', () => {
  it('refuses an archive whose declared expansion exceeds the budget, before inflating anything', () => {
    const zip = makeZip([
      { name: 'a.xml', data: deflateRawSync(Buffer.alloc(1000)), deflated: true, declaredSize: 5e6 },
    ]);
    expect(() => openZip(zip, 1e6)).toThrow(expect.objectContaining({ code: 'decompression_bomb' }));
  });

  it('stops inflating at the budget when an entry lies about its size', () => {
    const zip = makeZip([
      { name: 'a.xml', data: deflateRawSync(Buffer.alloc(5e6)), deflated: true, declaredSize: 10 },
    ]);
    const archive = openZip(zip, 1e6);
    expect(() => archive.read('a.xml')).toThrow(expect.objectContaining({ code: 'decompression_bomb' }));
  });

  it('reads honest deflated entries and refuses XML that declares entities', () => {
    const xml = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>';
    const zip = makeZip([
      { name: 'ok.xml', data: deflateRawSync(Buffer.from('<r>fine</r>')), deflated: true, declaredSize: 11 },
      { name: 'bad.xml', data: xml },
    ]);
    const archive = openZip(zip, DEFAULT_PARSE_OPTIONS.maxUnpackedBytes);
    expect(archive.text('ok.xml')).toBe('<r>fine</r>');
    expect(() => archive.text('bad.xml')).toThrow(expect.objectContaining({ code: 'unsafe_xml' }));
  });
});
