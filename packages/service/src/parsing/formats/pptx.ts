import path from 'node:path/posix';
import type { Element } from 'domhandler';
import { DocumentFailure } from '../../errors.js';
import { markdownTable } from '../markdown.js';
import {
  attr,
  childElements,
  findAll,
  findFirst,
  firstChild,
  localName,
  parseXml,
  relationshipId,
  textContent,
} from '../xml.js';
import type { ZipArchive } from '../zip.js';

/** Relationship id → target part name, for the part at `partName`. */
export function relationships(zip: ZipArchive, partName: string): Map<string, string> {
  const dir = path.dirname(partName);
  const relsName = path.join(dir, '_rels', `${path.basename(partName)}.rels`);
  const xml = zip.text(relsName);
  const map = new Map<string, string>();
  if (!xml) return map;
  for (const rel of findAll(parseXml(xml), 'Relationship')) {
    const id = attr(rel, 'Id');
    const target = attr(rel, 'Target');
    if (!id || !target || attr(rel, 'TargetMode') === 'External') continue;
    map.set(id, target.startsWith('/') ? target.slice(1) : path.normalize(path.join(dir, target)));
  }
  return map;
}

/** Text of a DrawingML paragraph: runs, fields and line breaks. */
function paragraphText(p: Element): string {
  let text = '';
  for (const c of childElements(p)) {
    const name = localName(c);
    if (name === 'r' || name === 'fld') text += textContent(firstChild(c, 't') ?? c);
    else if (name === 'br') text += '\n';
  }
  return text.replace(/[ \t]+/g, ' ').trim();
}

/** A text body as Markdown: bulleted and numbered paragraphs become list items, indented by level. */
function textBody(body: Element): string {
  const lines: string[] = [];
  const counters: number[] = [];
  let previousWasItem = false;
  for (const p of childElements(body, 'p')) {
    const text = paragraphText(p);
    if (!text) continue;
    const pPr = firstChild(p, 'pPr');
    const level = Number(pPr ? (attr(pPr, 'lvl') ?? 0) : 0);
    const numbered = pPr && firstChild(pPr, 'buAutoNum');
    const bulleted = pPr && (firstChild(pPr, 'buChar') || firstChild(pPr, 'buBlip'));
    if (numbered || bulleted) {
      counters.length = level + 1;
      counters[level] = (counters[level] ?? 0) + 1;
      const marker = numbered ? `${counters[level]}.` : '-';
      if (!previousWasItem && lines.length > 0) lines.push('');
      lines.push(`${'  '.repeat(level)}${marker} ${text.replace(/\n/g, ' ')}`);
      previousWasItem = true;
    } else {
      counters.length = 0;
      if (lines.length > 0) lines.push('');
      lines.push(text);
      previousWasItem = false;
    }
  }
  return lines.join('\n');
}

/** A table; cells covered by a merged cell (`hMerge`, `vMerge`) repeat its text, as spans do elsewhere. */
function tableMarkdown(tbl: Element): string {
  const rows: string[][] = [];
  for (const tr of childElements(tbl, 'tr')) {
    const above = rows.at(-1);
    const row: string[] = [];
    childElements(tr, 'tc').forEach((tc, j) => {
      const body = firstChild(tc, 'txBody');
      const text = body ? childElements(body, 'p').map(paragraphText).filter(Boolean).join(' ') : '';
      if (attr(tc, 'hMerge') === '1' && j > 0) row.push(row[j - 1] ?? '');
      else if (attr(tc, 'vMerge') === '1' && above) row.push(above[j] ?? '');
      else row.push(text);
    });
    rows.push(row);
  }
  return markdownTable(rows);
}

/** A chart's data as a table: one column per series, one row per category. */
export function chartMarkdown(xml: string): string {
  const doc = parseXml(xml);
  const title = findFirst(doc, 'title');
  const titleText = title
    ? findAll(title, 't')
        .map((t) => textContent(t))
        .join('')
        .trim()
    : '';
  const series = findAll(doc, 'ser');
  if (series.length === 0) return titleText;
  const values = (node: Element | undefined) =>
    node
      ? findAll(node, 'pt').map((pt) => [Number(attr(pt, 'idx') ?? 0), textContent(pt).trim()] as const)
      : [];
  const categories = new Map<number, string>();
  const header = [''];
  const columns: Map<number, string>[] = [];
  for (const ser of series) {
    const tx = firstChild(ser, 'tx');
    // The name's cached value; the cell reference beside it (`Sheet1!$B$1`) is not text.
    header.push(
      tx
        ? findAll(tx, 'v')
            .map((v) => textContent(v))
            .join(' ')
            .trim() || textContent(tx).trim()
        : '',
    );
    for (const [i, v] of values(firstChild(ser, 'cat') ?? firstChild(ser, 'xVal'))) categories.set(i, v);
    columns.push(new Map(values(firstChild(ser, 'val') ?? firstChild(ser, 'yVal'))));
  }
  const indexes = [...new Set([...categories.keys(), ...columns.flatMap((c) => [...c.keys()])])].sort(
    (a, b) => a - b,
  );
  const rows = indexes.map((i) => [
    categories.get(i) ?? String(i + 1),
    ...columns.map((c) => c.get(i) ?? ''),
  ]);
  const table = markdownTable([header, ...rows]);
  // The kind of chart (`c:barChart` → "Bar chart") is what a reader would call it.
  const plot = findFirst(doc, 'plotArea');
  const kind = plot ? childElements(plot).find((c) => /Chart$/.test(localName(c))) : undefined;
  const kindText = kind
    ? `${localName(kind)
        .replace(/(3D)?Chart$/, '')
        .replace(/^./, (c) => c.toUpperCase())} chart`
    : '';
  return [titleText, kindText, table].filter(Boolean).join('\n\n');
}

function isTitle(sp: Element): boolean {
  const ph = findFirst(firstChild(sp, 'nvSpPr') ?? sp, 'ph');
  const type = ph ? attr(ph, 'type') : undefined;
  return type === 'title' || type === 'ctrTitle';
}

/** The blocks of a shape tree in document order (groups are walked in place). */
function shapeBlocks(tree: Element, zip: ZipArchive, rels: Map<string, string>): string[] {
  const blocks: string[] = [];
  for (const shape of childElements(tree)) {
    const name = localName(shape);
    if (name === 'sp') {
      const body = firstChild(shape, 'txBody');
      if (!body) continue;
      const text = textBody(body);
      if (!text) continue;
      blocks.push(isTitle(shape) ? `# ${text.replace(/\s+/g, ' ')}` : text);
    } else if (name === 'grpSp') {
      blocks.push(...shapeBlocks(shape, zip, rels));
    } else if (name === 'graphicFrame') {
      const tbl = findFirst(shape, 'tbl');
      if (tbl) {
        const t = tableMarkdown(tbl);
        if (t) blocks.push(t);
        continue;
      }
      const chart = findFirst(shape, 'chart');
      const target = chart && rels.get(relationshipId(chart) ?? '');
      const xml = target ? zip.text(target) : undefined;
      if (xml) {
        const c = chartMarkdown(xml);
        if (c) blocks.push(c);
      }
    }
  }
  return blocks;
}

/** A presentation as one page per slide, in the order the presentation lists them. */
export function parsePptx(zip: ZipArchive): { pages: string[]; title: string | null } {
  const presentation = zip.text('ppt/presentation.xml');
  if (!presentation) throw new DocumentFailure('corrupt_document', 'The presentation has no slide list.');
  const rels = relationships(zip, 'ppt/presentation.xml');
  const slideIds = findAll(parseXml(presentation), 'sldId');
  const pages: string[] = [];
  let title: string | null = null;
  for (const sld of slideIds) {
    const part = rels.get(relationshipId(sld) ?? '');
    const xml = part ? zip.text(part) : undefined;
    if (!part || !xml) continue;
    const tree = findFirst(parseXml(xml), 'spTree');
    const blocks = tree ? shapeBlocks(tree, zip, relationships(zip, part)) : [];
    title ??= blocks.find((b) => b.startsWith('# '))?.slice(2) ?? null;
    pages.push(blocks.join('\n\n'));
  }
  return { pages, title };
}
