import { createElement, Fragment, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MARK_END, MARK_START, markSplitter, withMarkChars } from '../../src/lib/marks.js';
import {
  type MarkdownOptions,
  renderInlineMarkdown,
  renderMarkdown,
  tableLabel,
} from '../../src/markdown/render.js';

const html = (source: string, options?: MarkdownOptions) =>
  renderToStaticMarkup(createElement(Fragment, null, renderMarkdown(source, options)));

/** Renders with the cited range [start, end) marked, as the document's text view does. */
function markedHtml(source: string, start: number, end: number): string {
  const split = markSplitter();
  return html(withMarkChars(source, start, end), {
    headingLevel: 3,
    text: (s): ReactNode =>
      split(s).map((p, i) => (p.marked ? createElement('mark', { key: i }, p.text) : p.text)),
  });
}

describe('renderMarkdown', () => {
  it('renders headings, lists, tables and code instead of showing # and |', () => {
    const out = html(
      '# Pricing\n\nPlans:\n\n- Basic\n- Pro\n\n1. one\n2. two\n\n| Plan | Price |\n| --- | ---: |\n| Basic | 5 \\| 6 |\n\n```sh\nnpm start\n```\n',
      { headingLevel: 3 },
    );
    expect(out).toContain('<h3 class="md-h">Pricing</h3>');
    expect(out).toContain('<ul><li>Basic</li><li>Pro</li></ul>');
    expect(out).toContain('<ol><li>one</li><li>two</li></ol>');
    expect(out).toContain('<th>Plan</th><th style="text-align:right">Price</th>');
    expect(out).toContain('<td>Basic</td><td style="text-align:right">5 | 6</td>');
    expect(out).toContain('<pre class="md-code"><code>npm start</code></pre>');
    expect(out.replace('5 | 6', '')).not.toMatch(/[#|`]/); // the escaped pipe is the cell's text
  });

  it('shows headings of snippets as bold paragraphs, not as headings of the page', () => {
    expect(html('## Travel\n\nText.')).toBe('<p class="md-heading"><strong>Travel</strong></p><p>Text.</p>');
  });

  it('never turns the text into markup, scripts or links', () => {
    const out = html(
      '<script>alert(1)</script>\n\nA <img src=x onerror="alert(2)"> and [click](javascript:alert(3)) and ![pic](http://x/y.png) and <https://example.com>\n\n<!-- page 3 -->\n',
    );
    expect(out).not.toMatch(/<(script|img|a)[\s>]/i);
    expect(out).not.toMatch(/<[^>]*\s(href|src|on\w+)=/i);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
    expect(out).toContain('click');
    expect(out).toContain('pic');
    expect(out).not.toContain('page 3'); // a comment is not text
  });

  it('decodes character references outside code and keeps them in code', () => {
    expect(html('&lt;!-- page 7 --> &amp; &#233;&#x41; &bogus;\n\n`&amp;`')).toBe(
      '<p>&lt;!-- page 7 --&gt; &amp; éA &amp;bogus;</p><p><code>&amp;amp;</code></p>',
    );
  });

  it('renders the inline Markdown of a quote', () => {
    const out = renderToStaticMarkup(
      createElement(Fragment, null, renderInlineMarkdown('Run **`npm start`** then *wait*.')),
    );
    expect(out).toBe('Run <strong><code>npm start</code></strong> then <em>wait</em>.');
  });
});

describe('marking a cited range in rendered Markdown', () => {
  const doc =
    '# Vacation policy\n\nEvery employee receives 25 days of paid vacation per year.\n\n- Carry over until March.\n- Ask your manager.\n';

  it('marks exactly the cited characters inside a paragraph', () => {
    const start = doc.indexOf('25 days');
    const out = markedHtml(doc, start, start + '25 days'.length);
    expect(out).toContain('receives <mark>25 days</mark> of paid');
    expect(out).toContain('<h3 class="md-h">Vacation policy</h3>');
  });

  it('keeps the structure when the range starts on a heading, a list bullet or a table row', () => {
    const all = markedHtml(doc, 0, doc.length);
    expect(all).toContain('<h3 class="md-h"><mark>Vacation policy</mark></h3>');
    expect(all).toContain(
      '<li><mark>Carry over until March.</mark></li><li><mark>Ask your manager.</mark></li>',
    );
    const table = '| Plan | Price |\n| --- | --- |\n| Basic | 5 |\n| Pro | 9 |\n';
    const row = table.indexOf('| Basic');
    const out = markedHtml(table, row, table.indexOf('| Pro'));
    expect(out).toContain('<td><mark>Basic</mark></td><td><mark>5</mark></td>');
    expect(out).toContain('<td>Pro</td>');
  });

  it('marks across a code fence without breaking the block', () => {
    const md = 'Start it:\n\n```sh\nnpm start\n```\n\nThen wait.';
    const out = markedHtml(md, md.indexOf('```'), md.length);
    expect(out).toContain('<pre class="md-code"><code><mark>npm start</mark></code></pre>');
    expect(out).toContain('<p><mark>Then wait.</mark></p>');
  });

  it('moves marks off syntax and blank lines, and ignores mark characters already in the text', () => {
    expect(withMarkChars('# Title\n\nText', 0, 4)).toBe(`# ${MARK_START}Ti${MARK_END}tle\n\nText`);
    expect(withMarkChars('# Title\n\nText', 0, 2)).toBe('# Title\n\nText'); // only the heading's hash
    expect(withMarkChars('Para.\n\n- item', 5, 9)).toBe('Para.\n\n- item'); // only blank and syntax
    expect(withMarkChars(`a${MARK_START}b`, 0, 1)).toBe(`${MARK_START}a${MARK_END}\uFFFDb`);
  });
});

describe('tables of a text', () => {
  it('are groups named by their columns, not landmarks of one name', () => {
    const out = html(
      '| Setting | Default |\n| --- | --- |\n| PORT | 8080 |\n\n| Name | Role |\n| --- | --- |\n| Ada | owner |\n',
    );
    expect(out).not.toContain('<section');
    expect(out.match(/role="group"/g)).toHaveLength(2);
    expect(out).toContain('aria-label="Table: Setting, Default"');
    expect(out).toContain('aria-label="Table: Name, Role"');
  });

  it('are named "Table" without column names, and the names cut short when long', () => {
    expect(tableLabel(['', ' '])).toBe('Table');
    const long = tableLabel(Array.from({ length: 20 }, (_, i) => `Column number ${i}`));
    expect(long.startsWith('Table: Column number 0, Column number 1')).toBe(true);
    expect(long.endsWith('…')).toBe(true);
    expect(long.length).toBeLessThanOrEqual('Table: '.length + 80);
  });
});
