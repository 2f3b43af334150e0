import type { ChildNode, Element } from 'domhandler';
import { DocumentFailure } from '../../errors.js';
import { markdownTable } from '../markdown.js';
import { attr, childElements, findAll, findFirst, isElement, localName, parseXml } from '../xml.js';
import type { ZipArchive } from '../zip.js';
import type { Sheet } from './sheets.js';

/** Repeated empty cells or rows can claim a million copies; only this many are ever materialised. */
const MAX_REPEAT = 1000;

/** Inline text of an ODF paragraph: spans, links, spaces (`text:s`), tabs and line breaks. */
function inline(node: Element): string {
  let text = '';
  for (const c of node.children as ChildNode[]) {
    if (c.type === 'text') text += c.data;
    else if (isElement(c)) {
      const name = localName(c);
      if (name === 's') text += ' '.repeat(Math.min(Number(attr(c, 'c') ?? 1) || 1, 100));
      else if (name === 'tab') text += '\t';
      else if (name === 'line-break') text += '\n';
      else if (name === 'note' || name === 'annotation' || name === 'bookmark-ref') continue;
      else text += inline(c);
    }
  }
  return text;
}

function clean(text: string): string {
  return text
    .replace(/[ \t]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .trim();
}

function tableRows(table: Element): string[][] {
  const rows: string[][] = [];
  const visit = (node: Element) => {
    for (const c of childElements(node)) {
      const name = localName(c);
      if (name === 'table-row') {
        const cells: string[] = [];
        for (const cell of childElements(c)) {
          const cellName = localName(cell);
          if (cellName !== 'table-cell' && cellName !== 'covered-table-cell') continue;
          const text = childElements(cell)
            .map((p) => clean(inline(p)))
            .filter(Boolean)
            .join(' ');
          const repeat = Math.min(Number(attr(cell, 'number-columns-repeated') ?? 1) || 1, MAX_REPEAT);
          for (let i = 0; i < (text ? repeat : Math.min(repeat, 1)); i++) cells.push(text);
        }
        const repeat = Math.min(Number(attr(c, 'number-rows-repeated') ?? 1) || 1, MAX_REPEAT);
        const hasText = cells.some(Boolean);
        for (let i = 0; i < (hasText ? repeat : 1); i++) rows.push(cells);
      } else if (name === 'table-header-rows' || name === 'table-rows' || name === 'table-row-group') {
        visit(c);
      }
    }
  };
  visit(table);
  // Trailing empty rows and cells are how spreadsheets pad a sheet to its full size.
  while (rows.length && rows.at(-1)!.every((c) => !c)) rows.pop();
  return rows.map((r) => {
    let end = r.length;
    while (end > 0 && !r[end - 1]) end--;
    return r.slice(0, end);
  });
}

/** Blocks of an ODF text container (body, section, frame text box, list item) as Markdown. */
function blocks(node: Element, listDepth = 0): string[] {
  const out: string[] = [];
  for (const c of childElements(node)) {
    const name = localName(c);
    if (name === 'h') {
      const text = clean(inline(c)).replace(/\s+/g, ' ');
      const level = Math.min(Math.max(Number(attr(c, 'outline-level') ?? 1) || 1, 1), 6);
      if (text) out.push(`${'#'.repeat(level)} ${text}`);
    } else if (name === 'p') {
      const text = clean(inline(c));
      if (text) out.push(text);
      // Frames anchored in a paragraph (text boxes) hold their own paragraphs.
      for (const box of findAll(c, 'text-box')) out.push(...blocks(box, listDepth));
    } else if (name === 'list') {
      const items: string[] = [];
      for (const item of childElements(c)) {
        if (localName(item) !== 'list-item' && localName(item) !== 'list-header') continue;
        const inner = blocks(item, listDepth + 1);
        inner.forEach((b, i) => {
          const indent = '  '.repeat(listDepth);
          items.push(i === 0 && !b.startsWith(indent + '- ') ? `${indent}- ${b}` : b);
        });
      }
      if (items.length) out.push(items.join('\n'));
    } else if (name === 'table') {
      const t = markdownTable(tableRows(c));
      if (t) out.push(t);
    } else if (name === 'section' || name === 'frame' || name === 'text-box' || name === 'g') {
      out.push(...blocks(c, listDepth));
    }
  }
  return out;
}

function body(zip: ZipArchive): Element {
  const xml = zip.text('content.xml');
  if (!xml) throw new DocumentFailure('corrupt_document', 'The OpenDocument file has no content.');
  const b = findFirst(parseXml(xml), 'body');
  if (!b) throw new DocumentFailure('corrupt_document', 'The OpenDocument file has no body.');
  return b;
}

export function parseOdt(zip: ZipArchive): string {
  const text = findFirst(body(zip), 'text');
  return text ? blocks(text).join('\n\n') : '';
}

export function readOds(zip: ZipArchive): Sheet[] {
  const spreadsheet = findFirst(body(zip), 'spreadsheet');
  if (!spreadsheet) return [];
  return childElements(spreadsheet, 'table').map((t) => ({
    name: attr(t, 'name') ?? 'Sheet',
    rows: tableRows(t),
  }));
}

/** A presentation: one page per slide (`draw:page`). */
export function parseOdp(zip: ZipArchive): string[] {
  const presentation = findFirst(body(zip), 'presentation');
  if (!presentation) return [];
  return childElements(presentation, 'page').map((page) => {
    const out: string[] = [];
    for (const frame of childElements(page)) {
      const cls = attr(frame, 'class');
      const inner = blocks(frame);
      if (inner.length === 0) continue;
      if (cls === 'title') out.push(`# ${inner.join(' ').replace(/\s+/g, ' ')}`);
      else out.push(...inner);
    }
    return out.join('\n\n');
  });
}
