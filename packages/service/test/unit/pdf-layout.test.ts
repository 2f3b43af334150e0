import { describe, expect, it } from 'vitest';
import { parseBytes } from '../../src/parsing/parse.js';
import { makeLayoutPdf, type PlacedText } from '../support/fixtures.js';

const parse = async (pages: PlacedText[][]) =>
  (await parseBytes(makeLayoutPdf(pages), 'layout.pdf', null)).text;

/** Lines of body text from the top of a column downwards. */
function column(x: number, top: number, lines: string[], size = 10): PlacedText[] {
  return lines.map((text, i) => ({ x, y: top - i * 13, size, text }));
}

const LEFT = Array.from({ length: 12 }, (_, i) => `Left column line ${i + 1} about river ducks and lakes`);
const RIGHT = Array.from({ length: 12 }, (_, i) => `Right column line ${i + 1} about sea ducks and coasts`);

describe('PDF layout', () => {
  it('reads a two-column page column by column, after a full-width title', async () => {
    const text = await parse([
      [
        { x: 56, y: 740, size: 18, text: 'Field Guide to the Ducks of Northern Europe and Their Habitats' },
        ...column(56, 700, LEFT),
        ...column(320, 700, RIGHT),
      ],
    ]);
    const [title, left, right] = text.split('\n\n').slice(1);
    expect(title).toBe('# Field Guide to the Ducks of Northern Europe and Their Habitats');
    expect(left).toBe(LEFT.join(' '));
    expect(right).toBe(RIGHT.join(' '));
  });

  it('turns aligned multi-cell lines into a table, with a cell set on two lines kept in its row', async () => {
    const row = (y: number, cells: string[]) =>
      cells.map((text, i) => ({ x: 72 + i * 150, y, size: 10, text }));
    const text = await parse([
      [
        ...column(72, 720, ['The survey counted birds at three sites during the spring of last year.']),
        ...row(680, ['Site', 'Species', 'Count']),
        ...row(664, ['North lake', 'Mallard', '120']),
        ...row(648, ['South bay', 'Eider', '85']),
        { x: 222, y: 641, size: 10, text: 'Common' },
        ...row(632, ['East marsh', 'Teal', '40']),
        ...column(72, 590, ['Counts were made at dawn.']),
      ],
    ]);
    expect(text).toBe(
      [
        '<!-- page 1 -->',
        'The survey counted birds at three sites during the spring of last year.',
        '| Site | Species | Count |\n| --- | --- | --- |\n| North lake | Mallard | 120 |\n| South bay | Eider Common | 85 |\n| East marsh | Teal | 40 |',
        'Counts were made at dawn.',
      ].join('\n\n'),
    );
  });

  it('finds headings by size and by section number, and drops running footers and page numbers', async () => {
    const page = (n: number, heading: string, body: string[]) => [
      { x: 72, y: 720, size: 16, text: heading },
      ...column(72, 690, body),
      { x: 72, y: 620, size: 10, text: `${n}.1 Methods` },
      ...column(72, 595, [`Method notes for chapter ${n}.`]),
      { x: 72, y: 40, size: 8, text: `Duck Survey Report ${n}` },
      { x: 540, y: 40, size: 8, text: String(n) },
    ];
    const text = await parse([
      page(1, 'Chapter One', ['The first chapter introduces the survey.']),
      page(2, 'Chapter Two', ['The second chapter reports the counts.']),
      page(3, 'Chapter Three', ['The third chapter discusses the results.']),
    ]);
    expect(text).not.toMatch(/Duck Survey Report|\n\d\n/);
    expect(text.split('<!-- page 2 -->')[1]!.split('<!-- page 3 -->')[0]!.trim()).toBe(
      '# Chapter Two\n\nThe second chapter reports the counts.\n\n### 2.1 Methods\n\nMethod notes for chapter 2.',
    );
  });

  it('keeps a title page’s byline (names and an e-mail address) out of the headings, real headings in', async () => {
    // Issue 43: libtasn1.pdf's authors' line became a heading, the breadcrumb of every later passage.
    const byline = async (authors: string[]) =>
      parse([
        [
          { x: 72, y: 740, size: 24, text: 'Libtasn1' },
          ...column(72, 700, ['Abstract Syntax Notation One (ASN.1) library for the GNU system']),
          ...authors.map((text, i) => ({ x: 72, y: 650 - i * 17, size: 14, text })),
          { x: 72, y: 560, size: 16, text: '1 Introduction' },
          ...column(72, 530, ['Libtasn1 is a library for ASN.1 and DER manipulation.']),
          { x: 72, y: 480, size: 14, text: 'Maintainers and bug reports' },
          ...column(72, 450, ['Reports go to the mailing list of the project.']),
        ],
      ]);
    const one = await byline(['Nikos Mavrogiannopoulos, Simon Josefsson (bug-libtasn1@gnu.org)']);
    const two = await byline([
      'Fabio Fiorina Simon Josefsson',
      'Nikos Mavrogiannopoulos (help-libtasn1@gnu.org)',
    ]);
    const headings = (text: string) => text.split('\n\n').filter((b) => b.startsWith('#'));
    expect(headings(one)).toEqual(['# Libtasn1', '## 1 Introduction', '### Maintainers and bug reports']);
    expect(headings(two)).toEqual(headings(one));
    expect(one).toContain('\n\nNikos Mavrogiannopoulos, Simon Josefsson (bug-libtasn1@gnu.org)\n\n');
    expect(two).toContain(
      '\n\nFabio Fiorina Simon Josefsson Nikos Mavrogiannopoulos (help-libtasn1@gnu.org)\n\n',
    );
  });

  it('renders a table of contents as a table of entries and pages', async () => {
    const text = await parse([
      column(72, 700, [
        'Preface . . . . . . . . . . . . . . . . . . . . . . . xi',
        '1.1 Security fundamentals . . . . . . . . . . . . . . 2',
        '1.2 Current state . . . . . . . . . . . . . . . . . . . 12',
      ]),
    ]);
    expect(text).toBe(
      '<!-- page 1 -->\n\n| Contents | Page |\n| --- | --- |\n| Preface | xi |\n| 1.1 Security fundamentals | 2 |\n| 1.2 Current state | 12 |',
    );
  });
});
