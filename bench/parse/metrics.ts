/**
 * Quality measures for extracted Markdown against an expected rendering.
 *
 * Token F1 compares bags of words: markup (table rules, heading marks, emphasis, HTML comments such as
 * page markers) is not content, so it is removed before counting, and the order of words is ignored so
 * that a correct text in a different but valid reading order is not punished twice.
 */

/** Words (letters and digits runs), lower-cased and Unicode-normalised, after dropping markup. */
export function contentTokens(markdown: string): string[] {
  const text = markdown
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .normalize('NFKC')
    .toLowerCase();
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

function counts(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

function overlap(a: Map<string, number>, b: Map<string, number>): number {
  let n = 0;
  for (const [t, c] of a) n += Math.min(c, b.get(t) ?? 0);
  return n;
}

export interface F1 {
  precision: number;
  recall: number;
  f1: number;
}

export function tokenF1(actual: string, expected: string): F1 {
  const a = contentTokens(actual);
  const e = contentTokens(expected);
  if (a.length === 0 && e.length === 0) return { precision: 1, recall: 1, f1: 1 };
  const common = overlap(counts(a), counts(e));
  const precision = a.length ? common / a.length : 0;
  const recall = e.length ? common / e.length : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

function normaliseCell(cell: string): string {
  return contentTokens(cell.replace(/\\\|/g, '|')).join(' ');
}

/** Non-empty cells of every Markdown table row, separator rows excluded. */
export function tableCells(markdown: string): string[] {
  const cells: string[] = [];
  for (const raw of markdown.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('|')) continue;
    const parts = line
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split(/(?<!\\)\|/);
    if (parts.every((p) => /^\s*:?-+:?\s*$/.test(p))) continue;
    for (const p of parts) {
      const c = normaliseCell(p);
      if (c) cells.push(c);
    }
  }
  return cells;
}

/**
 * Share of the expected table cells (as a multiset) that appear among the actual table cells.
 * Undefined when the expected text has no table.
 */
export function tableCellRecall(actual: string, expected: string): number | undefined {
  const e = tableCells(expected);
  if (e.length === 0) return undefined;
  return overlap(counts(e), counts(tableCells(actual))) / e.length;
}

/** Heading texts (any level), normalised like table cells. */
export function headings(markdown: string): string[] {
  return markdown
    .split('\n')
    .filter((l) => /^#{1,6}\s/.test(l))
    .map((l) => contentTokens(l).join(' '))
    .filter(Boolean);
}

/**
 * F1 over headings: a heading counts when the same text is a heading on both sides. Undefined when
 * the expected text has no heading.
 */
export function headingF1(actual: string, expected: string): F1 | undefined {
  const e = headings(expected);
  if (e.length === 0) return undefined;
  const a = headings(actual);
  const common = overlap(counts(a), counts(e));
  const precision = a.length ? common / a.length : 0;
  const recall = common / e.length;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}
