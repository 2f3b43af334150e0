import { createRequire } from 'node:module';
import path from 'node:path';
import { DocumentFailure } from '../../errors.js';
import { markdownTable } from '../markdown.js';
import { ocrPdfPages } from './tools.js';

/**
 * PDF to Markdown from the positioned text pdfjs reports: lines are rebuilt from baselines, running
 * headers and footers are dropped, two-column pages are read column by column, runs of aligned
 * multi-cell lines become tables, and lines set larger than the body text become headings.
 */

interface TextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  fontName: string;
}

interface Item {
  str: string;
  x: number;
  y: number;
  end: number;
  size: number;
  font: string;
  mono: boolean;
}

/** A run of text on one line with no wide gap inside. */
interface Segment {
  x0: number;
  x1: number;
  text: string;
  /** The font of its first item (a segment rarely mixes fonts that matter). */
  font: string;
  mono: boolean;
}

interface Line {
  y: number;
  /** Font size of the line's letters (symbols and bullets often come larger or smaller). */
  size: number;
  /** The font most of its characters are set in. */
  font: string;
  /** Set entirely in a monospaced font (code). */
  mono: boolean;
  segments: Segment[];
}

interface Page {
  width: number;
  height: number;
  lines: Line[];
}

/** pdfjs is large; load it only when a PDF arrives. */
async function loadPdfjs() {
  return import('pdfjs-dist/legacy/build/pdf.mjs');
}

/**
 * pdfjs's data folders: character maps (many CJK fonts decode to text only through them) and the
 * standard fonts' metrics. They are read from the installed package, which the sandbox mounts read-only.
 */
function pdfjsData(): { cMapUrl: string; standardFontDataUrl: string; wasmUrl: string } {
  const root = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return {
    cMapUrl: `${path.join(root, 'cmaps')}/`,
    standardFontDataUrl: `${path.join(root, 'standard_fonts')}/`,
    wasmUrl: `${path.join(root, 'wasm')}/`,
  };
}

const WORD_GAP = 0.12;
/** A horizontal gap this many font sizes wide separates cells (or columns), not words. */
const CELL_GAP = 0.9;

function toItems(raw: TextItem[], styles: Record<string, { fontFamily?: string }>): Item[] {
  const items: Item[] = [];
  for (const it of raw) {
    if (!it.str?.trim()) continue;
    const x = it.transform[4] ?? 0;
    const y = it.transform[5] ?? 0;
    const size = Math.hypot(it.transform[2] ?? 0, it.transform[3] ?? 0) || it.height || 10;
    const mono = styles[it.fontName]?.fontFamily === 'monospace';
    items.push({ str: it.str, x, y, end: x + it.width, size, font: it.fontName, mono });
  }
  return items;
}

function asciiShare(text: string): number {
  const visible = text.replace(/\s/g, '');
  return visible.length ? (visible.match(/[\x21-\x7e]/g)?.length ?? 0) / visible.length : 0;
}

/** The value carrying the most characters. */
function dominant<T>(items: Item[], key: (i: Item) => T): T | undefined {
  const weights = new Map<T, number>();
  for (const it of items) weights.set(key(it), (weights.get(key(it)) ?? 0) + it.str.length);
  let best: T | undefined;
  let most = -1;
  for (const [k, w] of weights)
    if (w > most) {
      most = w;
      best = k;
    }
  return best;
}

/** Items grouped by baseline (top to bottom), each line cut into segments at wide gaps. */
/** Text drawn twice at the same place (simulated bold, a hidden text layer over the visible one) counts once. */
function dropOverprints(items: Item[]): Item[] {
  const seen = new Set<string>();
  return items.filter((it) => {
    const key = `${it.str}@${Math.round(it.x)},${Math.round(it.y)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function toLines(items: Item[]): Line[] {
  const sorted = dropOverprints(items).sort((a, b) => b.y - a.y || a.x - b.x);
  const groups: Item[][] = [];
  let current: Item[] = [];
  let baseline = Number.NaN;
  for (const it of sorted) {
    const size = Math.max(it.size, current[0]?.size ?? 0);
    if (current.length && Math.abs(baseline - it.y) <= size * 0.45) current.push(it);
    else {
      if (current.length) groups.push(current);
      current = [it];
      baseline = it.y;
    }
  }
  if (current.length) groups.push(current);
  return groups.map((group) => {
    group.sort((a, b) => a.x - b.x);
    const lettered = group.filter((g) => /[\p{L}\p{N}]/u.test(g.str));
    const size = median((lettered.length ? lettered : group).map((g) => g.size));
    const segments: Segment[] = [];
    let seg: Segment | undefined;
    for (const it of group) {
      const gap = seg ? it.x - seg.x1 : 0;
      if (seg && gap <= size * CELL_GAP) {
        const needsSpace = gap > size * WORD_GAP && !seg.text.endsWith(' ') && !it.str.startsWith(' ');
        seg.text += (needsSpace ? ' ' : '') + it.str;
        seg.x1 = Math.max(seg.x1, it.end);
      } else {
        seg = { x0: it.x, x1: it.end, text: it.str, font: it.font, mono: it.mono };
        segments.push(seg);
      }
    }
    for (const s of segments) s.text = s.text.replace(/\s+/g, ' ').trim();
    return {
      y: median(group.map((g) => g.y)),
      size,
      font: dominant(group, (g) => g.font) ?? '',
      // Code is mostly ASCII; CJK fonts are often fixed-pitch without being code.
      mono: group.every((g) => g.mono) && asciiShare(group.map((g) => g.str).join('')) > 0.8,
      segments: segments.filter((s) => s.text),
    };
  });
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function lineText(line: Line): string {
  return line.segments.map((s) => s.text).join(' ');
}

/** Running headers and footers (repeated in the page margins) and bare page numbers are not content. */
function dropFurniture(pages: Page[]): void {
  const key = (l: Line) => lineText(l).toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ');
  const inMargin = (p: Page, l: Line) => l.y > p.height * 0.9 || l.y < p.height * 0.1;
  const seen = new Map<string, number>();
  for (const p of pages) {
    for (const k of new Set(p.lines.filter((l) => inMargin(p, l)).map(key)))
      seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  const repeated = (k: string) => pages.length >= 2 && (seen.get(k) ?? 0) >= Math.max(2, pages.length * 0.3);
  for (const p of pages) {
    p.lines = p.lines.filter((l) => {
      if (!inMargin(p, l)) return true;
      if (/^(page\s*)?\d{1,4}(\s*(of|\/)\s*\d{1,4})?$/i.test(lineText(l).trim())) return false;
      return !repeated(key(l));
    });
  }
}

/**
 * Reading order of a two-column page: finds a gutter that prose lines on both sides respect, then
 * reads the left column, then the right, flushing both whenever a full-width line (a title, a wide
 * figure caption) interrupts them. Pages without such a gutter keep top-to-bottom order.
 */
function readingOrder(page: Page): Line[] {
  const { width, lines } = page;
  const segments = lines.flatMap((l) => l.segments);
  if (lines.length < 10) return lines;
  // The gutter is the middle of the widest band of x positions that the fewest segments cross.
  const samples: { x: number; crossings: number }[] = [];
  for (let x = width * 0.3; x <= width * 0.7; x += 1)
    samples.push({ x, crossings: segments.filter((s) => s.x0 < x && s.x1 > x).length });
  if (samples.length === 0) return lines;
  const fewest = Math.min(...samples.map((p) => p.crossings));
  let best: { x: number; crossings: number; run: number } | undefined;
  let runStart = -1;
  samples.forEach((p, i) => {
    if (p.crossings === fewest && runStart === -1) runStart = i;
    const runEnds = p.crossings !== fewest || i === samples.length - 1;
    if (runStart !== -1 && runEnds) {
      const end = p.crossings === fewest ? i : i - 1;
      const run = end - runStart;
      if (!best || run > best.run)
        best = { x: (samples[runStart]!.x + samples[end]!.x) / 2, crossings: fewest, run };
      runStart = -1;
    }
  });
  if (!best) return lines;
  const gutter = best.x;
  const wide = (s: Segment) => s.x1 - s.x0 > width * 0.25;
  const leftProse = segments.filter((s) => s.x1 <= gutter && wide(s)).length;
  const rightProse = segments.filter((s) => s.x0 >= gutter && wide(s)).length;
  if (best.crossings > lines.length * 0.15 || leftProse < 5 || rightProse < 5) return lines;
  const out: Line[] = [];
  let left: Line[] = [];
  let right: Line[] = [];
  const flush = () => {
    out.push(...left, ...right);
    left = [];
    right = [];
  };
  for (const line of lines) {
    if (line.segments.some((s) => s.x0 < gutter - 1 && s.x1 > gutter + 1)) {
      flush();
      out.push(line);
      continue;
    }
    const l = line.segments.filter((s) => s.x1 <= gutter);
    const r = line.segments.filter((s) => s.x0 >= gutter);
    if (l.length) left.push(withSegments(line, l));
    if (r.length) right.push(withSegments(line, r));
  }
  flush();
  return out;
}

/** Part of a line (one column's share of it), with the font of that part. */
function withSegments(line: Line, segments: Segment[]): Line {
  const weights = new Map<string, number>();
  for (const seg of segments) weights.set(seg.font, (weights.get(seg.font) ?? 0) + seg.text.length);
  const font = [...weights].sort((a, b) => b[1] - a[1])[0]?.[0] ?? line.font;
  return { ...line, segments, font, mono: line.mono || segments.every((seg) => seg.mono) };
}

/** Column intervals of a table from the segments of its fullest rows. */
function tableColumns(rows: Line[]): [number, number][] {
  const counts = rows.map((r) => r.segments.length);
  const typical = median(counts);
  const defining = rows.filter((r) => r.segments.length >= typical).flatMap((r) => r.segments);
  const sorted = [...defining].sort((a, b) => a.x0 - b.x0);
  const columns: [number, number][] = [];
  for (const s of sorted) {
    const last = columns.at(-1);
    if (last && s.x0 < last[1]) last[1] = Math.max(last[1], s.x1);
    else columns.push([s.x0, s.x1]);
  }
  return columns;
}

function overlap(a0: number, a1: number, b0: number, b1: number): number {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
}

/**
 * Lines closer together than a normal line spacing belong to one visual row: a cell's text set on two
 * stacked lines, or a row label centred between them. They are merged, top line first.
 */
function rowBands(lines: Line[]): Line[] {
  const bands: Line[] = [];
  for (const line of lines) {
    const last = bands.at(-1);
    if (last && last.y - line.y < Math.min(last.size, line.size) * 0.9) {
      bands[bands.length - 1] = { ...last, y: line.y, segments: [...last.segments, ...line.segments] };
    } else bands.push(line);
  }
  return bands;
}

/** Lines as table rows: each segment goes to the column(s) it covers; wrapped cell lines join their row. */
function tableMarkdownFrom(lines: Line[]): string | undefined {
  const rows = rowBands(lines);
  const columns = tableColumns(rows);
  if (columns.length < 2) return undefined;
  const grid: string[][] = [];
  let previous: { line: Line; cells: string[] } | undefined;
  for (const line of rows) {
    const cells = Array<string>(columns.length).fill('');
    const used = new Set<number>();
    for (const s of line.segments) {
      let covered = columns
        .map(
          (c, i) =>
            [i, overlap(s.x0, s.x1, c[0], c[1]) / Math.max(1, Math.min(s.x1 - s.x0, c[1] - c[0]))] as const,
        )
        .filter(([, share]) => share > 0.3)
        .map(([i]) => i);
      if (covered.length === 0) {
        const centre = (s.x0 + s.x1) / 2;
        let nearest = 0;
        columns.forEach((c, i) => {
          if (
            Math.abs((c[0] + c[1]) / 2 - centre) <
            Math.abs((columns[nearest]![0] + columns[nearest]![1]) / 2 - centre)
          )
            nearest = i;
        });
        covered = [nearest];
      }
      // A cell spanning several columns is repeated in each, as spanning cells are in Markdown renderings.
      for (const i of covered) {
        cells[i] = cells[i] ? `${cells[i]} ${s.text}` : s.text;
        used.add(i);
      }
    }
    const gap = previous ? previous.line.y - line.y : Number.POSITIVE_INFINITY;
    const continuation =
      previous && !used.has(0) && used.size < columns.length && gap < line.size * 1.6 && grid.length > 1;
    if (continuation && previous) {
      cells.forEach((c, i) => {
        if (c) previous!.cells[i] = previous!.cells[i] ? `${previous!.cells[i]} ${c}` : c;
      });
      previous.line = line;
      continue;
    }
    grid.push(cells);
    previous = { line, cells };
  }
  if (grid.length < 2) return undefined;
  // Two columns whose first holds only symbols are a list of bullets or check boxes, not a table.
  if (columns.length === 2 && grid.every((r) => !/[\p{L}\p{N}]/u.test(r[0] ?? ''))) return undefined;
  return markdownTable(grid);
}

/** A section number set apart from its title ("5.2   Results") is a heading, not two cells. */
const SECTION_NUMBER = /^(\d{1,2}(\.\d{1,2}){0,3}\.?|[A-Z]\.|[IVX]{1,4}\.)$/;

function isTableLine(line: Line): boolean {
  const [first, second] = line.segments;
  if (line.segments.length === 2 && SECTION_NUMBER.test(first!.text) && /^\p{Lu}/u.test(second!.text))
    return false;
  return line.segments.length >= 2;
}

function wordsPerSegment(lines: Line[]): number {
  const segs = lines.flatMap((l) => l.segments);
  return segs.reduce((n, s) => n + s.text.split(' ').length, 0) / Math.max(1, segs.length);
}

type Block = { kind: 'table'; text: string } | { kind: 'lines'; lines: Line[] };

/**
 * A table-of-contents entry: a title, dot leaders (four dots or more, each followed by at most one
 * space), a page number (arabic or roman); its title and page, else undefined. Read from the end
 * backwards: a lazy title before `(?:\.\s?){4,}` backtracked polynomially on long lines of dots.
 */
function tocEntry(line: string): [string, string] | undefined {
  let end = line.length;
  let start = end;
  while (start > 0 && /[\divxlc]/i.test(line[start - 1]!)) start--;
  if (start === end || end - start > 6) return undefined;
  const page = line.slice(start, end);
  end = start;
  while (end > 0 && /\s/.test(line[end - 1]!)) end--;
  let dots = 0;
  for (;;) {
    if (end > 0 && line[end - 1] === '.') {
      dots++;
      end--;
    } else if (end > 1 && /\s/.test(line[end - 1]!) && line[end - 2] === '.' && dots > 0) end--;
    else break;
  }
  if (dots < 4) return undefined;
  const title = line.slice(0, end).trimEnd();
  return title ? [title, page] : undefined;
}

/** Splits a flow of lines into tables (runs of aligned multi-cell lines, tables of contents) and the rest. */
function findTables(lines: Line[]): Block[] {
  const blocks: Block[] = [];
  let pending: Line[] = [];
  const flushLines = () => {
    if (pending.length) blocks.push({ kind: 'lines', lines: pending });
    pending = [];
  };
  let i = 0;
  while (i < lines.length) {
    // A run of contents entries is a two-column table: entry and page.
    let k = i;
    while (k < lines.length && tocEntry(lineText(lines[k]!))) k++;
    if (k - i >= 3) {
      flushLines();
      const rows = lines.slice(i, k).map((l) => tocEntry(lineText(l))!);
      blocks.push({ kind: 'table', text: markdownTable([['Contents', 'Page'], ...rows]) });
      i = k;
      continue;
    }
    if (!isTableLine(lines[i]!)) {
      pending.push(lines[i]!);
      i++;
      continue;
    }
    // A run of multi-cell lines, allowing single wrapped lines between them.
    let j = i;
    let multi = 0;
    while (j < lines.length) {
      const line = lines[j]!;
      // Rows are set close together; a wide vertical gap ends the table.
      if (j > i && lines[j - 1]!.y - line.y > Math.max(line.size, lines[j - 1]!.size) * 2.5) break;
      if (isTableLine(line)) multi++;
      else if (
        !(j + 1 < lines.length && isTableLine(lines[j + 1]!) && lines[j - 1] && isTableLine(lines[j - 1]!))
      )
        break;
      j++;
    }
    const run = lines.slice(i, j);
    const table =
      multi >= 3 && wordsPerSegment(run.filter(isTableLine)) <= 6 ? tableMarkdownFrom(run) : undefined;
    if (table) {
      flushLines();
      blocks.push({ kind: 'table', text: table });
    } else pending.push(...run);
    i = j;
  }
  flushLines();
  return blocks;
}

const NUMBERED_HEADING = /^(\d{1,2}(\.\d{1,2}){0,3}\.?|[A-Z]\.|[IVX]{1,4}\.)\s+\p{Lu}/u;

interface Style {
  bodySize: number;
  /** Heading font sizes, largest first. */
  headingSizes: number[];
  bodyFont: string;
  /** Share of the document's characters set in each font. */
  fontShare: Map<string, number>;
}

const HEADING_RATIO = 1.08;
const NOT_A_HEADING = /^(figure|fig\.|table|source|note|listing|example|chart)\b/i;
/**
 * An e-mail address marks a byline (a title page's authors and their address), set large as a title
 * is but naming no section: as a heading it became every later passage's breadcrumb (issue 43).
 */
// Its middle is enough to tell ("x@gnu.org"): a name part before it would make the match quadratic.
const EMAIL_ADDRESS = /\w@[\w-]+\.\w/;

/**
 * Whether a line belongs to a byline: a run of lines of one size set close together, one of which
 * holds an e-mail address. The whole run, since names often fill a line before the address comes
 * ("Fabio Fiorina Simon Josefsson" above "Nikos Mavrogiannopoulos (help-libtasn1@gnu.org)").
 */
function inByline(lines: Line[], idx: number): boolean {
  const close = (a: Line, b: Line) =>
    !a.mono && !b.mono && Math.abs(a.size - b.size) < 0.6 && Math.abs(a.y - b.y) <= a.size * 1.5;
  let first = idx;
  while (first > 0 && close(lines[first - 1]!, lines[first]!)) first--;
  let last = idx;
  while (last + 1 < lines.length && close(lines[last]!, lines[last + 1]!)) last++;
  for (let i = first; i <= last; i++) if (EMAIL_ADDRESS.test(lineText(lines[i]!))) return true;
  return false;
}

interface Context {
  /** Set apart by a wider gap above and below than the lines of a paragraph. */
  alone: boolean;
  /** Set apart above or below, with its neighbours in other fonts: a one-line run of its own font. */
  singled: boolean;
}

function headingLevel(
  line: Line,
  style: Style,
  text: string,
  { alone, singled }: Context,
): number | undefined {
  if (line.mono || text.length > 150 || !/\p{L}/u.test(text)) return undefined;
  // Long lines ending like a sentence are prose, whatever their size.
  if (text.length > 60 && /[.;,]$/.test(text)) return undefined;
  if (line.size >= style.bodySize * HEADING_RATIO) {
    const rank = style.headingSizes.findIndex((s) => Math.abs(s - line.size) < 0.6);
    return Math.min((rank === -1 ? style.headingSizes.length : rank) + 1, 4);
  }
  // A short line standing alone in a rarely used font of body size: a bold or small-caps heading.
  const rareFont = line.font !== style.bodyFont && (style.fontShare.get(line.font) ?? 0) < 0.2;
  if (
    rareFont &&
    singled &&
    line.size >= style.bodySize * 0.95 &&
    text.length <= 100 &&
    /^[\p{Lu}\d]/u.test(text) &&
    !/[.:;,]$/.test(text) &&
    !NOT_A_HEADING.test(text)
  ) {
    return Math.min(style.headingSizes.length + 1, 4);
  }
  // Body-size headings are recognisable by their numbering when they stand alone.
  if (alone && text.length <= 90 && NUMBERED_HEADING.test(text) && !/[.:;,]$/.test(text)) {
    const depth = (/^\d+(\.\d+)*/.exec(text)?.[0].split('.').length ?? 1) + 1;
    return Math.min(depth, 4);
  }
  return undefined;
}

/** Joins the lines of a paragraph, mending words hyphenated across lines. */
function joinLines(lines: string[]): string {
  let text = '';
  for (const l of lines) {
    if (!text) text = l;
    else if (/\p{L}-$/u.test(text) && /^\p{Ll}/u.test(l)) text = text.slice(0, -1) + l;
    else text += ` ${l}`;
  }
  return text;
}

function renderLines(lines: Line[], style: Style): string[] {
  const out: string[] = [];
  let para: string[] = [];
  let code: string[] = [];
  let prev: Line | undefined;
  const flush = () => {
    if (para.length) out.push(joinLines(para));
    para = [];
    if (code.length) out.push(`\`\`\`\n${code.join('\n').replaceAll('```', "'''")}\n\`\`\``);
    code = [];
  };
  lines.forEach((line, idx) => {
    const text = lineText(line);
    // Lines set in a monospaced font are code: kept line by line in a fence.
    if (line.mono) {
      if (para.length) flush();
      code.push(line.segments.map((s) => s.text).join('  '));
      prev = line;
      return;
    }
    if (code.length) flush();
    const next = lines[idx + 1];
    const gapBefore = prev ? prev.y - line.y : Number.POSITIVE_INFINITY;
    const gapAfter = next ? line.y - next.y : Number.POSITIVE_INFINITY;
    const spacing = line.size * 1.5;
    const alone = gapBefore > spacing && gapAfter > spacing;
    const singled =
      (gapBefore > spacing || gapAfter > spacing) && prev?.font !== line.font && next?.font !== line.font;
    const level = inByline(lines, idx) ? undefined : headingLevel(line, style, text, { alone, singled });
    if (level !== undefined) {
      flush();
      const last = out.at(-1);
      // A heading set on two lines is one heading.
      if (
        last?.startsWith(`${'#'.repeat(level)} `) &&
        prev &&
        Math.abs(prev.size - line.size) < 0.6 &&
        gapBefore < spacing
      )
        out[out.length - 1] = `${last} ${text}`;
      else out.push(`${'#'.repeat(level)} ${text}`);
    } else {
      // A gap well beyond the line height, or a change of font size, starts a new paragraph.
      if (
        prev &&
        (gapBefore > Math.max(prev.size, line.size) * 1.6 ||
          gapBefore < 0 ||
          Math.abs(prev.size - line.size) > 1.5)
      )
        flush();
      para.push(text);
    }
    prev = line;
  });
  flush();
  return out;
}

function documentStyle(pages: Page[]): Style {
  const chars = new Map<number, number>();
  const fonts = new Map<string, number>();
  let total = 0;
  for (const p of pages)
    for (const l of p.lines) {
      const size = Math.round(l.size * 2) / 2;
      const n = lineText(l).length;
      chars.set(size, (chars.get(size) ?? 0) + n);
      fonts.set(l.font, (fonts.get(l.font) ?? 0) + n);
      total += n;
    }
  let bodyFont = '';
  let mostFont = -1;
  for (const [font, n] of fonts)
    if (n > mostFont) {
      mostFont = n;
      bodyFont = font;
    }
  const fontShare = new Map([...fonts].map(([f, n]) => [f, n / Math.max(1, total)]));
  let bodySize = 10;
  let most = -1;
  for (const [size, n] of chars)
    if (n > most) {
      most = n;
      bodySize = size;
    }
  const headingSizes = [...chars.keys()].filter((s) => s >= bodySize * HEADING_RATIO).sort((a, b) => b - a);
  return { bodySize, headingSizes, bodyFont, fontShare };
}

function renderPage(page: Page, style: Style): string {
  const blocks = findTables(readingOrder(page));
  return blocks.flatMap((b) => (b.kind === 'table' ? [b.text] : renderLines(b.lines, style))).join('\n\n');
}

/** Pages with fewer letters and digits than this are treated as scans (a stamped page number is not a text layer). */
const MIN_PAGE_CHARS = 3;

/** Extracts text page by page; in the full profile, pages without a text layer are read by OCR. */
export async function parsePdf(
  buf: Buffer,
  options: { ocr: boolean },
): Promise<{ pages: string[]; title: string | null }> {
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument({
    // A copy: pdfjs takes ownership of (detaches) the buffer it is given, and OCR needs the bytes later.
    data: new Uint8Array(buf),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
    cMapPacked: true,
    ...pdfjsData(),
  });
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name === 'PasswordException') {
      throw new DocumentFailure(
        'encrypted_document',
        'The PDF is encrypted with a password; upload an unprotected copy.',
      );
    }
    throw new DocumentFailure('corrupt_document', `The PDF could not be read: ${(err as Error).message}`);
  }
  try {
    const pages: Page[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const [x0 = 0, y0 = 0, x1 = 612, y1 = 792] = page.view;
      const styles = content.styles as Record<string, { fontFamily?: string }>;
      const lines = toLines(toItems(content.items as TextItem[], styles)).map((l) => ({ ...l, y: l.y - y0 }));
      for (const s of lines.flatMap((l) => l.segments)) {
        s.x0 -= x0;
        s.x1 -= x0;
      }
      pages.push({ width: x1 - x0, height: y1 - y0, lines });
      page.cleanup();
    }
    const meta = await doc.getMetadata().catch(() => undefined);
    const info = meta?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : null;
    const chars = pages.map((p) =>
      p.lines.reduce((n, l) => n + (lineText(l).match(/[\p{L}\p{N}]/gu)?.length ?? 0), 0),
    );
    const scanned = chars.flatMap((c, i) => (c < MIN_PAGE_CHARS ? [i + 1] : []));
    if (scanned.length === pages.length && !options.ocr) {
      throw new DocumentFailure(
        'needs_ocr',
        'The PDF has no text layer (a scan?); its text needs OCR, which the full worker (WORKER_PROFILE=full) provides.',
      );
    }
    dropFurniture(pages);
    const style = documentStyle(pages);
    const texts = pages.map((p) => renderPage(p, style));
    if (options.ocr && scanned.length > 0) {
      const ocr = await ocrPdfPages(buf, scanned);
      for (const [n, text] of ocr) texts[n - 1] = text.trim();
    }
    return { pages: texts, title };
  } finally {
    await doc.destroy();
  }
}
