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
import { chartMarkdown, relationships } from './pptx.js';

export interface Sheet {
  name: string;
  /** Charts drawn on the sheet, each already rendered (title, kind, data table). */
  charts?: string[];
  /** Cells by row and column index (sparse: holes and '' are empty cells). */
  rows: string[][];
}

interface Box {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/**
 * The separate tables on a sheet: groups of non-empty cells that touch (diagonals included), with
 * groups whose bounding boxes overlap merged, in reading order (top to bottom, then left to right).
 */
function tableBoxes(rows: string[][]): Box[] {
  const filled = new Set<string>();
  rows.forEach((row, r) => {
    row?.forEach((c, col) => {
      if (c) filled.add(`${r}:${col}`);
    });
  });
  const seen = new Set<string>();
  let boxes: Box[] = [];
  for (const start of filled) {
    if (seen.has(start)) continue;
    seen.add(start);
    const [r0, c0] = start.split(':').map(Number) as [number, number];
    const box = { top: r0, left: c0, bottom: r0, right: c0 };
    const stack: [number, number][] = [[r0, c0]];
    while (stack.length) {
      const [r, c] = stack.pop()!;
      box.top = Math.min(box.top, r);
      box.bottom = Math.max(box.bottom, r);
      box.left = Math.min(box.left, c);
      box.right = Math.max(box.right, c);
      for (let dr = -1; dr <= 1; dr++)
        for (let dc = -1; dc <= 1; dc++) {
          const key = `${r + dr}:${c + dc}`;
          if (filled.has(key) && !seen.has(key)) {
            seen.add(key);
            stack.push([r + dr, c + dc]);
          }
        }
    }
    boxes.push(box);
  }
  const overlaps = (a: Box, b: Box) =>
    a.left <= b.right && b.left <= a.right && a.top <= b.bottom && b.top <= a.bottom;
  for (let merged = true; merged; ) {
    merged = false;
    outer: for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++)
        if (overlaps(boxes[i]!, boxes[j]!)) {
          const a = boxes[i]!;
          const b = boxes[j]!;
          boxes[i] = {
            top: Math.min(a.top, b.top),
            left: Math.min(a.left, b.left),
            bottom: Math.max(a.bottom, b.bottom),
            right: Math.max(a.right, b.right),
          };
          boxes = boxes.filter((_, k) => k !== j);
          merged = true;
          break outer;
        }
  }
  return boxes.sort((a, b) => a.top - b.top || a.left - b.left);
}

/** Each sheet as Markdown: its name as a heading, then each separate range of cells as a table. */
export function sheetsToMarkdown(sheets: Sheet[]): string {
  const out: string[] = [];
  for (const sheet of sheets) {
    const tables = tableBoxes(sheet.rows)
      .map((box) => {
        const grid: string[][] = [];
        for (let r = box.top; r <= box.bottom; r++)
          grid.push(
            Array.from({ length: box.right - box.left + 1 }, (_, i) => sheet.rows[r]?.[box.left + i] ?? ''),
          );
        return markdownTable(grid);
      })
      .filter(Boolean);
    const charts = sheet.charts ?? [];
    if (tables.length === 0 && charts.length === 0) continue;
    out.push(`## ${sheet.name.replace(/\s+/g, ' ').trim() || 'Sheet'}`, ...tables, ...charts);
  }
  return out.join('\n\n');
}

/** A merged range shows its first cell's value over the whole range, as a reader sees it. */
function fillMergedCells(rows: string[][], refs: string[]): void {
  let budget = MAX_MERGED_CELLS;
  for (const ref of refs) {
    const m = /^([A-Z]+)(\d+):([A-Z]+)(\d+)$/i.exec(ref);
    if (!m) continue;
    const [c0, r0, c1, r1] = [columnIndex(m[1]!), Number(m[2]) - 1, columnIndex(m[3]!), Number(m[4]) - 1];
    const value = rows[r0]?.[c0];
    if (!value) continue;
    const area = (r1 - r0 + 1) * (c1 - c0 + 1);
    if (area > budget || r1 >= MAX_ROWS || c1 >= MAX_COLUMNS) continue;
    budget -= area;
    for (let r = r0; r <= r1; r++) {
      rows[r] ??= [];
      for (let c = c0; c <= c1; c++) if (!rows[r]![c]) rows[r]![c] = value;
    }
  }
}

/** Merged ranges are filled only up to this many cells in all, so a hostile range cannot blow up. */
const MAX_MERGED_CELLS = 100_000;

/** Column letters of an A1 reference → zero-based index. */
function columnIndex(ref: string): number {
  let n = 0;
  for (const ch of ref.toUpperCase()) {
    const code = ch.charCodeAt(0);
    if (code < 65 || code > 90) break;
    n = n * 26 + (code - 64);
  }
  return n - 1;
}

const MAX_COLUMNS = 16_384;
const MAX_ROWS = 1_048_576;

/** Spreadsheet serial day number → ISO date (1900 date system, with Excel's phantom 29 Feb 1900). */
function serialToIso(serial: number): string {
  const ms = Math.round((serial - 25569) * 86_400_000);
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(serial);
  const iso = d.toISOString();
  return serial % 1 === 0 ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
}

const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** Which cell style indexes display numbers as dates. */
function dateStyles(zip: ZipArchive): Set<number> {
  const xml = zip.text('xl/styles.xml');
  const dates = new Set<number>();
  if (!xml) return dates;
  const doc = parseXml(xml);
  const custom = new Map<number, string>();
  for (const f of findAll(doc, 'numFmt'))
    custom.set(Number(attr(f, 'numFmtId')), attr(f, 'formatCode') ?? '');
  const xfs = findFirst(doc, 'cellXfs');
  if (!xfs) return dates;
  childElements(xfs, 'xf').forEach((xf, i) => {
    const id = Number(attr(xf, 'numFmtId') ?? 0);
    const code = custom.get(id);
    // A custom format is a date when it has day/month/year codes outside quoted text and brackets.
    const isDate =
      BUILTIN_DATE_FORMATS.has(id) ||
      (code !== undefined && /[dmy]/i.test(code.replace(/"[^"]*"|\[[^[\]]*\]|\\./g, '')));
    if (isDate) dates.add(i);
  });
  return dates;
}

function sharedStrings(zip: ZipArchive): string[] {
  const xml = zip.text('xl/sharedStrings.xml');
  if (!xml) return [];
  // Phonetic runs (rPh) are reading aids, not part of the value.
  return findAll(parseXml(xml), 'si').map((si) =>
    findAll(si, 't')
      .filter((t) => !(t.parent && localName(t.parent as Element) === 'rPh'))
      .map((t) => textContent(t))
      .join(''),
  );
}

function xlsxSheet(xml: string, strings: string[], dates: Set<number>): string[][] {
  const rows: string[][] = [];
  const doc = parseXml(xml);
  const data = findFirst(doc, 'sheetData');
  if (!data) return rows;
  let nextRow = 0;
  for (const row of childElements(data, 'row')) {
    const r = Math.min(Number(attr(row, 'r') ?? nextRow + 1) - 1, MAX_ROWS);
    if (r < 0) continue;
    nextRow = r + 1;
    const cells: string[] = [];
    let nextCol = 0;
    for (const c of childElements(row, 'c')) {
      const ref = attr(c, 'r');
      const col = ref ? columnIndex(ref) : nextCol;
      nextCol = col + 1;
      if (col < 0 || col >= MAX_COLUMNS) continue;
      const type = attr(c, 't');
      const v = firstChild(c, 'v');
      const raw = v ? textContent(v) : '';
      let value: string;
      if (type === 's') value = strings[Number(raw)] ?? '';
      else if (type === 'inlineStr')
        value = findAll(c, 't')
          .map((t) => textContent(t))
          .join('');
      else if (type === 'b') value = raw === '1' ? 'TRUE' : raw === '0' ? 'FALSE' : raw;
      else if (type === 'str' || type === 'e') value = raw;
      else if (raw !== '' && dates.has(Number(attr(c, 's') ?? -1)) && Number.isFinite(Number(raw)))
        value = serialToIso(Number(raw));
      else value = raw;
      cells[col] = value.trim();
    }
    rows[r] = cells;
  }
  fillMergedCells(
    rows,
    findAll(doc, 'mergeCell').map((m) => attr(m, 'ref') ?? ''),
  );
  return rows;
}

/** Charts on a sheet: sheet → drawing → chart parts, each chart's data as a table. */
function sheetCharts(zip: ZipArchive, sheetPart: string): string[] {
  const charts: string[] = [];
  for (const drawing of relationships(zip, sheetPart).values()) {
    if (!/drawings\/[^/]+\.xml$/.test(drawing)) continue;
    for (const target of relationships(zip, drawing).values()) {
      if (!/charts\/[^/]+\.xml$/.test(target)) continue;
      const xml = zip.text(target);
      const md = xml ? chartMarkdown(xml) : '';
      if (md) charts.push(md);
    }
  }
  return charts;
}

/** The workbook's sheets in tab order, with values as displayed where that matters (text, dates, booleans). */
export function readXlsx(zip: ZipArchive): Sheet[] {
  const workbook = zip.text('xl/workbook.xml');
  if (!workbook) throw new DocumentFailure('corrupt_document', 'The workbook has no sheet list.');
  const rels = relationships(zip, 'xl/workbook.xml');
  const strings = sharedStrings(zip);
  const dates = dateStyles(zip);
  const sheets: Sheet[] = [];
  for (const s of findAll(parseXml(workbook), 'sheet')) {
    const part = rels.get(relationshipId(s) ?? '');
    const xml = part ? zip.text(part) : undefined;
    if (!part || !xml) continue;
    sheets.push({
      name: attr(s, 'name') ?? 'Sheet',
      rows: xlsxSheet(xml, strings, dates),
      charts: sheetCharts(zip, part),
    });
  }
  return sheets;
}
