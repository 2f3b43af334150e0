/**
 * Converts an HTML tree to Markdown that keeps what retrieval and citations need: headings, paragraphs,
 * lists, tables (as GFM tables) and code. Links and images keep only their text; inline emphasis is
 * dropped because it adds noise to search and nothing to answers.
 */
import { trimEndWhile } from '../strings.js';

interface NodeLike {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<NodeLike>;
  getAttribute?: (name: string) => string | null;
}

const SKIP = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'SVG',
  'CANVAS',
  'IFRAME',
  'OBJECT',
  'HEAD',
  // A fragment's own <title> (or <meta>, <link>) lands in the body: it names the page, it is not text.
  'TITLE',
  'META',
  'LINK',
  'BUTTON',
  'SELECT',
  'INPUT',
  'TEXTAREA',
  'FORM',
]);
const BLOCK = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'MAIN',
  'HEADER',
  'FOOTER',
  'ASIDE',
  'NAV',
  'FIGURE',
  'FIGCAPTION',
  'ADDRESS',
  'DL',
  'DT',
  'DD',
  'DETAILS',
  'SUMMARY',
  'CAPTION',
  'CENTER',
  'BODY',
  'HTML',
]);

function collapse(text: string): string {
  return text.replace(/[ \t\r\n\f\u00a0]+/g, ' ');
}

function children(node: NodeLike): NodeLike[] {
  return Array.from(node.childNodes);
}

/** Inline text of a subtree, whitespace collapsed; `<br>` becomes a line break. */
function inlineText(node: NodeLike): string {
  if (node.nodeType === 3) return collapse(node.textContent ?? '');
  if (node.nodeType !== 1 || SKIP.has(node.nodeName)) return '';
  if (node.nodeName === 'BR') return '\n';
  if (node.nodeName === 'IMG') return node.getAttribute?.('alt') ?? '';
  return children(node).map(inlineText).join('');
}

function escapeCell(text: string): string {
  return text.replace(/\s+/g, ' ').replaceAll('|', '\\|').trim();
}

const MAX_SPAN = 50;

/**
 * A table as GFM. Cells spanning several columns or rows are repeated in each position they cover,
 * so every row reads complete on its own (which is what a chunk cut out of the table needs).
 */
function tableToMarkdown(table: NodeLike): string {
  const grid: string[][] = [];
  let row = 0;
  const visit = (n: NodeLike) => {
    for (const c of children(n)) {
      if (c.nodeType !== 1) continue;
      if (c.nodeName === 'TR') {
        grid[row] ??= [];
        let col = 0;
        for (const cell of children(c)) {
          if (cell.nodeType !== 1 || (cell.nodeName !== 'TD' && cell.nodeName !== 'TH')) continue;
          while (grid[row]![col] !== undefined) col++;
          const text = escapeCell(blockText(cell));
          const colspan = Math.min(Math.max(Number(cell.getAttribute?.('colspan') ?? 1) || 1, 1), MAX_SPAN);
          const rowspan = Math.min(Math.max(Number(cell.getAttribute?.('rowspan') ?? 1) || 1, 1), MAX_SPAN);
          for (let r = 0; r < rowspan; r++) {
            grid[row + r] ??= [];
            for (let k = 0; k < colspan; k++) grid[row + r]![col + k] = text;
          }
          col += colspan;
        }
        row++;
      } else if (c.nodeName !== 'TABLE') {
        visit(c);
      }
    }
  };
  visit(table);
  const rows = grid.slice(0, row).map((r) => Array.from(r, (c) => c ?? ''));
  const nonEmpty = rows.filter((r) => r.some((c) => c !== ''));
  if (nonEmpty.length === 0) return '';
  const width = Math.max(...nonEmpty.map((r) => r.length));
  const pad = (r: string[]) => [...r, ...Array<string>(width - r.length).fill('')];
  const [head, ...body] = nonEmpty.map(pad);
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  return [line(head!), line(Array<string>(width).fill('---')), ...body.map(line)].join('\n');
}

/** Text of a block's subtree flattened to one paragraph (used for table cells). */
function blockText(node: NodeLike): string {
  return convertChildren(node, 0, true)
    .map((b) => b.replace(/\n+/g, ' '))
    .join(' ')
    .trim();
}

/** The only cell of a table that has exactly one (not counting nested tables), if so. */
function singleCell(table: NodeLike): NodeLike | undefined {
  const cells: NodeLike[] = [];
  const visit = (n: NodeLike) => {
    for (const c of children(n)) {
      if (c.nodeType !== 1 || c.nodeName === 'TABLE') continue;
      if (c.nodeName === 'TD' || c.nodeName === 'TH') cells.push(c);
      else visit(c);
    }
  };
  visit(table);
  return cells.length === 1 ? cells[0] : undefined;
}

/** A table inside a table cell has no Markdown form: its cells' text, in order, stands in for it. */
function flatTableText(table: NodeLike): string {
  const cells: string[] = [];
  const visit = (n: NodeLike) => {
    for (const c of children(n)) {
      if (c.nodeType !== 1) continue;
      if (c.nodeName === 'TD' || c.nodeName === 'TH') cells.push(blockText(c));
      else visit(c);
    }
  };
  visit(table);
  return cells.filter(Boolean).join(' ');
}

function listToMarkdown(list: NodeLike, depth: number): string {
  const ordered = list.nodeName === 'OL';
  const lines: string[] = [];
  let n = 1;
  for (const item of children(list)) {
    if (item.nodeType !== 1 || item.nodeName !== 'LI') continue;
    const marker = ordered ? `${n++}.` : '-';
    const indent = '  '.repeat(depth);
    let inline: NodeLike[] = [];
    const nested: string[] = [];
    let opened = false;
    // The item's text up to here: its first line carries the marker, a later one (after a table) is
    // indented under it.
    const flush = () => {
      const text = inline
        .map((c) => (c.nodeType === 1 && BLOCK.has(c.nodeName) ? blockText(c) : inlineText(c)))
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim();
      inline = [];
      if (!text) return;
      lines.push(opened ? `${indent}  ${text}` : `${indent}${marker} ${text}`);
      opened = true;
    };
    for (const c of children(item)) {
      if (c.nodeType === 1 && (c.nodeName === 'UL' || c.nodeName === 'OL'))
        nested.push(listToMarkdown(c, depth + 1));
      else if (c.nodeType === 1 && c.nodeName === 'TABLE' && !singleCell(c)) {
        // A table of data in a list item stays a table: flattened, its cells ran together
        // ("LIMIT_SQL_LENGTH1,000,000,000100,000" in sqlite's security advice).
        flush();
        const t = tableToMarkdown(c);
        if (t) lines.push(t);
      } else inline.push(c);
    }
    flush();
    lines.push(...nested.filter(Boolean));
  }
  return lines.join('\n');
}

/** Converts a node's children into Markdown blocks (`inCell`: inside a table cell). */
function convertChildren(node: NodeLike, depth: number, inCell = false): string[] {
  const blocks: string[] = [];
  let inline = '';
  const flush = () => {
    const text = inline
      .split('\n')
      .map((l) => l.trim())
      .join('\n')
      .replace(/\n{2,}/g, '\n')
      .trim();
    if (text) blocks.push(text);
    inline = '';
  };
  for (const c of children(node)) {
    if (c.nodeType === 3) {
      inline += collapse(c.textContent ?? '');
      continue;
    }
    if (c.nodeType !== 1 || SKIP.has(c.nodeName)) continue;
    const name = c.nodeName;
    const heading = /^H([1-6])$/.exec(name);
    if (heading) {
      flush();
      const text = anchorFree(inlineText(c));
      if (text) blocks.push(`${'#'.repeat(Number(heading[1]))} ${text}`);
    } else if (name === 'TABLE') {
      flush();
      const only = singleCell(c);
      if (only) {
        // A one-cell table is a frame around content (a layout table), not tabular data.
        blocks.push(...convertChildren(only, depth + 1, inCell));
        continue;
      }
      const t = inCell ? flatTableText(c) : tableToMarkdown(c);
      if (t) blocks.push(t);
    } else if (name === 'UL' || name === 'OL') {
      flush();
      const l = listToMarkdown(c, 0);
      if (l) blocks.push(l);
    } else if (name === 'DL' && !inCell) {
      flush();
      blocks.push(...definitionList(c, depth));
    } else if (name === 'PRE') {
      flush();
      const code = trimEndWhile(c.textContent ?? '', (ch) => ch === '\n');
      if (code.trim()) blocks.push(`\`\`\`\n${code}\n\`\`\``);
    } else if (name === 'BLOCKQUOTE') {
      flush();
      const inner = convertChildren(c, depth + 1).join('\n\n');
      if (inner) blocks.push(inner.replace(/^/gm, '> '));
    } else if (name === 'HR') {
      flush();
    } else if (BLOCK.has(name) || name === 'LI') {
      flush();
      blocks.push(...convertChildren(c, depth + 1, inCell));
    } else {
      inline += inlineText(c);
    }
  }
  flush();
  return blocks;
}

/** A heading's or term's text without the permalink marks documentation generators append ("Title¶"). */
function anchorFree(text: string): string {
  return text.replace(/[¶§]/g, '').replace(/\s+/g, ' ').trim();
}

/** Starts like ordinary prose (not a heading, list, table, code or quote), so a term can lead it. */
const PROSE = /^(?![#>|`-]|\d+\.\s)/;

/**
 * A definition list with each term leading its definition ("deb-src: package source of source
 * packages"), so that a sentence quoted or found alone still names what it defines: the term and its
 * definition are one statement. Definitions that start with a list, a table or code follow the term
 * on their own.
 */
function definitionList(list: NodeLike, depth: number): string[] {
  const blocks: string[] = [];
  let terms: string[] = [];
  const flushTerms = () => {
    if (terms.length) blocks.push(terms.join(', '));
    terms = [];
  };
  for (const c of children(list)) {
    if (c.nodeType !== 1) continue;
    if (c.nodeName === 'DT') {
      const term = anchorFree(inlineText(c));
      if (term) terms.push(term);
    } else if (c.nodeName === 'DD') {
      const parts = convertChildren(c, depth + 1);
      if (terms.length && parts.length && PROSE.test(parts[0]!)) {
        parts[0] = `${terms.join(', ')}: ${parts[0]}`;
        terms = [];
      }
      flushTerms();
      blocks.push(...parts);
    } else if (c.nodeName === 'DIV') {
      // HTML allows a div around each term and its definitions.
      flushTerms();
      blocks.push(...definitionList(c, depth));
    }
  }
  flushTerms();
  return blocks;
}

export function htmlNodeToMarkdown(root: NodeLike): string {
  return convertChildren(root, 0).join('\n\n');
}
