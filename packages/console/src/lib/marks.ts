/**
 * Marking a cited range of a document's Markdown once it is rendered. Citations are offsets into the
 * Markdown source; the rendered text no longer has them. Two characters from Unicode's private use
 * area are put into the source where the range starts and ends: Markdown treats them as text, so they
 * come out of the renderer in the runs of text they fall into, where `MarkSplitter` turns them into a
 * `<mark>` around the characters between them, across as many runs (paragraphs, cells) as it spans.
 */

export const MARK_START = '\uE000';
export const MARK_END = '\uE001';
export const MARK_CHARS = /[\uE000\uE001]/g;

/** What starts a line's block structure: quote, heading hashes, list bullet or number, a table's pipe. */
const LINE_SYNTAX =
  /^[ \t]*(?:(?:>|#{1,6}(?=[ \t]|$)|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))[ \t]*)*(?:\|[ \t]*)?/;
/**
 * Lines that are only structure: a code fence, a table's separator row, a rule or heading underline.
 * Tested on the line without its outer spaces and tabs (`withoutOuterBlanks`): with them, the pattern's
 * runs of blanks could trade characters and backtrack polynomially on a long line of them.
 */
const STRUCTURE = /^(?:```|~~~|=+$|(?:\|[ \t]*)?:?-+:?(?:[ \t]*\|[ \t]*:?-+:?)*(?:[ \t]*\|)?$)/;
const isBlank = (c: string | undefined) => c === ' ' || c === '\t';
function withoutOuterBlanks(line: string): string {
  let s = 0;
  let e = line.length;
  while (s < e && isBlank(line[s])) s++;
  while (e > s && isBlank(line[e - 1])) e--;
  return line.slice(s, e);
}
const isStructureLine = (line: string) => STRUCTURE.test(withoutOuterBlanks(line));

const lineStartOf = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
function lineEndOf(text: string, at: number): number {
  const end = text.indexOf('\n', at);
  return end < 0 ? text.length : end;
}
const syntaxLength = (line: string) => LINE_SYNTAX.exec(line)?.[0].length ?? 0;

/** Moves a start that falls on a line's syntax or on a structure-only line to the first text after it. */
function textStart(text: string, at: number): number {
  let s = at;
  while (s < text.length) {
    const start = lineStartOf(text, s);
    const end = lineEndOf(text, s);
    const line = text.slice(start, end);
    if (isStructureLine(line) || text.slice(s, end).trim() === '') {
      s = end + 1;
      continue;
    }
    return Math.max(s, start + syntaxLength(line));
  }
  return text.length;
}

/** Moves an end that falls at a line's start, in its syntax or on a structure line back to the text before. */
function textEnd(text: string, at: number): number {
  let e = at;
  while (e > 0) {
    if (text[e - 1] === '\n') {
      e--;
      continue;
    }
    const start = lineStartOf(text, e);
    const line = text.slice(start, lineEndOf(text, e));
    if (isStructureLine(line) || e - start <= syntaxLength(line)) {
      e = start;
      continue;
    }
    // After a table row's closing pipe, the mark would make a cell of its own (and be dropped).
    const before = text.slice(start, e);
    if (line.trimStart().startsWith('|') && /\|[ \t]*$/.test(before)) {
      let cut = before.lastIndexOf('|');
      while (cut > 0 && isBlank(before[cut - 1])) cut--;
      return start + cut;
    }
    return e;
  }
  return 0;
}

/**
 * `text` with the mark characters around [start, end), moved off Markdown syntax so that they never
 * change how the text parses (a mark before `# Title` would make it a paragraph). Mark characters the
 * text already held are replaced, so that only these two count.
 */
export function withMarkChars(text: string, start: number, end: number): string {
  const clean = text.replace(MARK_CHARS, '\uFFFD');
  const s = textStart(clean, Math.max(0, start));
  const e = textEnd(clean, Math.min(clean.length, end));
  if (s >= e) return clean;
  return clean.slice(0, s) + MARK_START + clean.slice(s, e) + MARK_END + clean.slice(e);
}

export interface MarkedPart {
  text: string;
  marked: boolean;
}

/**
 * Splits the runs of rendered text at the mark characters, in the order they are rendered; it
 * remembers whether it is inside the mark from one run to the next.
 */
export function markSplitter(): (text: string) => MarkedPart[] {
  let inside = false;
  return (text) => {
    const parts: MarkedPart[] = [];
    let last = 0;
    for (const m of text.matchAll(MARK_CHARS)) {
      if (m.index > last) parts.push({ text: text.slice(last, m.index), marked: inside });
      inside = m[0] === MARK_START;
      last = m.index + 1;
    }
    if (last < text.length) parts.push({ text: text.slice(last), marked: inside });
    return parts;
  };
}

/**
 * `text` with the mark characters around each of `ranges` (a search snippet's highlighted words):
 * the same splitter then marks them in the rendered Markdown. Ranges are sorted and kept apart.
 */
export function withMarkRanges(text: string, ranges: readonly { start: number; end: number }[]): string {
  const clean = text.replace(MARK_CHARS, '\uFFFD');
  let out = '';
  let at = 0;
  for (const r of [...ranges].sort((a, b) => a.start - b.start)) {
    const start = Math.max(at, r.start);
    const end = Math.min(clean.length, r.end);
    if (end <= start) continue;
    out += clean.slice(at, start) + MARK_START + clean.slice(start, end) + MARK_END;
    at = end;
  }
  return out + clean.slice(at);
}
