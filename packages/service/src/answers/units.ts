import type { Language } from '../text/language.js';
import type { Span } from '../text/sentences.js';

/**
 * The sentences of a passage the extractive answerer may quote (extractive.ts): sentences in the
 * passage's language, table rows read with their column names, code blocks as the commands they hold.
 */

/** A sentence of a passage (a table row counts as one), as the answer would quote it. */
export interface Unit {
  start: number;
  end: number;
  text: string;
  terms: Set<string>;
  /**
   * A table row's: the words of its table's header (one object for every row of a table) and its own
   * cells' words. A header says its words once, however many rows it sits over: how rare a word is
   * among the sentences counts it once for the table (extractive.ts).
   */
  header?: ReadonlySet<string>;
  cells?: ReadonlySet<string>;
  /** A table row's cells with the names of their columns, as written: ["SQLITE_TEMP_STORE", "2"]. */
  columns?: readonly (readonly [column: string, value: string])[];
  /** A code block's: what it holds is to be typed, not read. */
  code?: true;
}

/** Shortest quotable sentence: twelve characters, or four in Chinese and Japanese, which say more per character. */
const minimumQuote = (language: Language) => (language.code === 'ja' || language.code === 'zh' ? 4 : 12);

/**
 * The question a FAQ's answer sits under: a heading or a sentence that asks ("## 7.14. 如何从源码包构建
 * 二进制包？", "How do I …?"). It is not quoted (it asks, it does not answer), and the sentences and
 * code after it, up to the next heading or question, are read with its words as well as their own: a
 * FAQ's answer rarely repeats the words of its question, and the reader's question matched those.
 */
interface Asked {
  terms: string[];
  /**
   * Not the question's but carried the same way, from row to row: the header terms of the tables read
   * so far, by the offset of their header row, so that every row of a table shares one set.
   */
  headers: Map<number, ReadonlySet<string>>;
}

/** Ends with a question mark, its closing quotes or brackets aside. */
const asks = (sentence: string) => /[?？][\s"'”’」』）)*]*$/.test(sentence);

/** Strips Markdown structure (heading hashes, list bullets, emphasis) from a quoted sentence. */
function clean(sentence: string): string {
  return sentence
    .replace(/^#{1,6}\s+/, '')
    .replace(/^\s*([-*+]|\d+\.)\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const SEPARATOR_ROW = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$/;
const cells = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.replaceAll('\\|', '|').trim());

/**
 * A table's header row in `text` for the row at `start`: the first line of the table, when a separator
 * line follows it. Undefined when the row is itself the header, or the passage holds no header (a
 * table cut across passages).
 */
function tableHeader(text: string, start: number): { at: number; cells: string[] } | undefined {
  const lines: { at: number; line: string }[] = [];
  let at = text.lastIndexOf('\n', start - 1) + 1;
  while (at > 0) {
    const prev = text.lastIndexOf('\n', at - 2) + 1;
    const line = unquoted(text.slice(prev, at - 1));
    if (!line.startsWith('|')) break;
    lines.unshift({ at: prev, line });
    at = prev;
  }
  if (lines.length < 2 || !SEPARATOR_ROW.test(lines[1]!.line.trim())) return undefined;
  return { at: lines[0]!.at, cells: cells(lines[0]!.line) };
}

/**
 * A line without its blockquote markers and indentation: a table inside a blockquote (sqlite's pages
 * put most of theirs in one) is written "> | a | b |", and is a table all the same.
 */
const unquoted = (line: string) => line.replace(/^\s*(>\s?)+/, '').trimStart();

const TABLE_ROW = /^\s{0,3}(>\s?)*\s*\|/;

/**
 * The longest row quoted whole: the longest quote the answerer makes (DEFAULT_EXTRACTIVE). A longer
 * row is prose laid out in a table (a FAQ's answers in a column), read sentence by sentence.
 */
const LONGEST_ROW = 500;

/**
 * The sentence spans of `text[from, to)`, each row of a table of data one span: a cell may hold
 * several sentences ("The database text encoding. A value of 1 means UTF-8. A value of 2 means
 * UTF-16le."), and cut at its full stops the row's later sentences lost their column names and their
 * row. A table of one row is a box around prose (the Debian Reference's notes are "| [Note] | Note |"
 * over one row of paragraphs), and a row longer than a quote is paragraphs in a cell: their sentences
 * are quoted one by one, as before.
 */
function rowAwareSpans(text: string, from: number, to: number, language: Language): Span[] {
  const lines: { start: number; end: number; row: boolean }[] = [];
  for (let at = from; at < to; ) {
    let end = text.indexOf('\n', at);
    if (end < 0 || end > to) end = to;
    lines.push({ start: at, end, row: TABLE_ROW.test(text.slice(at, Math.min(end, at + 16))) });
    at = end + 1;
  }
  const spans: Span[] = [];
  let prose = from;
  for (let i = 0; i < lines.length; ) {
    if (!lines[i]!.row) {
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && lines[j]!.row) j++;
    // Header, separator and rows: at least two rows of data make a table of data.
    if (j - i >= 4) {
      if (prose < lines[i]!.start) spans.push(...language.sentenceSpans(text, prose, lines[i]!.start));
      for (let k = i; k < j; k++) {
        let a = lines[k]!.start;
        let b = lines[k]!.end;
        if (b - a > LONGEST_ROW) {
          spans.push(...language.sentenceSpans(text, a, b));
          continue;
        }
        while (a < b && /\s/.test(text[a]!)) a++;
        while (b > a && /\s/.test(text[b - 1]!)) b--;
        if (b > a) spans.push([a, b]);
      }
      prose = lines[j - 1]!.end;
    }
    i = j;
  }
  if (prose < to) spans.push(...language.sentenceSpans(text, prose, to));
  return spans;
}

/**
 * The sentences of a passage that could be quoted. Headings name a topic and a table's header row
 * names its columns: neither answers a question. A table row reads as "column: value; …" with its
 * header's names (issue 16: "bigint | 8 bytes" was pipe soup), so it also matches the words of the
 * columns it sits under.
 */
export function unitsOf(text: string, language: Language): Unit[] {
  const units: Unit[] = [];
  const asked: Asked = { terms: [], headers: new Map() };
  // Code blocks are one unit each (a command to type is an answer); sentences are found around them.
  const fences = codeFences(text);
  let at = 0;
  for (const f of [...fences, undefined]) {
    const end = f ? f.index : text.length;
    units.push(...sentenceUnits(text, at, end, language, asked));
    if (!f) break;
    const code = f.body.trim();
    if (code && code.length <= 300 && /\p{L}/u.test(code)) {
      const start = f.bodyStart;
      units.push({
        start,
        end: start + f.body.trimEnd().length,
        text: joinLines(code),
        terms: new Set([...language.contentTerms(code), ...asked.terms]),
        code: true,
      });
    }
    at = f.end;
  }
  return units;
}

/**
 * Fenced code blocks: a line starting with ``` and the text up to the next ```. Found with indexOf
 * rather than a lazy pattern, which tried a long run of backticks again from each of them.
 */
function codeFences(text: string): { index: number; end: number; body: string; bodyStart: number }[] {
  const fences: { index: number; end: number; body: string; bodyStart: number }[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('```', from);
    if (open < 0) break;
    const newline = text.indexOf('\n', open + 3);
    if (newline < 0) break;
    const close = text.indexOf('```', newline + 1);
    // No closing fence after this line: none after any later opening either.
    if (close < 0) break;
    fences.push({
      index: open,
      end: close + 3,
      body: text.slice(newline + 1, close),
      bodyStart: newline + 1,
    });
    from = close + 3;
  }
  return fences;
}

/** A code block's lines joined with " ; ", the whitespace around each line break (and empty lines) dropped. */
function joinLines(code: string): string {
  const lines = code.split('\n');
  let out = lines[0]!.trimEnd();
  let pending = false;
  for (let i = 1; i < lines.length; i++) {
    pending = true;
    const line = i === lines.length - 1 ? lines[i]!.trimStart() : lines[i]!.trim();
    if (line) {
      out += ` ; ${line}`;
      pending = false;
    }
  }
  return pending ? `${out} ; ` : out;
}

function sentenceUnits(text: string, from: number, to: number, language: Language, asked: Asked): Unit[] {
  const units: Unit[] = [];
  for (const [start, end] of rowAwareSpans(text, from, to, language)) {
    const raw = text.slice(start, end);
    const row = TABLE_ROW.test(raw) ? unquoted(raw) : undefined;
    if (/^#{1,6}\s/.test(raw)) {
      asked.terms = asks(raw) ? language.contentTerms(raw) : [];
      continue;
    }
    if (asks(raw) && row === undefined) {
      asked.terms = language.contentTerms(raw);
      continue;
    }
    let quoted: string;
    let extra = '';
    let table: Pick<Unit, 'header' | 'cells' | 'columns'> | undefined;
    if (row !== undefined) {
      if (SEPARATOR_ROW.test(row)) continue;
      const values = cells(row);
      const next = text.slice(
        end + 1,
        text.indexOf('\n', end + 1) === -1 ? undefined : text.indexOf('\n', end + 1),
      );
      if (SEPARATOR_ROW.test(unquoted(next).trim())) continue; // the header row itself
      const found = tableHeader(text, start);
      const header = found?.cells;
      quoted = header
        ? values
            .map((v, i) => (header[i] && v ? `${header[i]}: ${v}` : v))
            .filter(Boolean)
            .join('; ')
        : values.filter(Boolean).join('; ');
      extra = header?.join(' ') ?? '';
      if (found && !asked.headers.has(found.at))
        asked.headers.set(found.at, new Set(language.contentTerms(extra)));
      // A whole row (a box's first sentence is cut from the rest of its cell, and is prose).
      if (row.trimEnd().endsWith('|'))
        table = {
          header: found ? asked.headers.get(found.at)! : new Set(),
          cells: new Set(language.contentTerms(values.join(' '))),
          columns: header ? values.flatMap((v, i) => (header[i] && v ? [[header[i]!, v] as const] : [])) : [],
        };
    } else {
      quoted = clean(raw);
    }
    if (quoted.length < minimumQuote(language) || !/[\p{L}]/u.test(quoted)) continue;
    units.push({
      start,
      end,
      text: quoted,
      terms: new Set([...language.contentTerms(`${quoted} ${extra}`), ...asked.terms]),
      ...table,
    });
  }
  return units;
}
