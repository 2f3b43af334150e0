/** Reading a document's extracted text: pages, the cited passage, the words a search matched. */

const PAGE_MARKER = /^<!-- page (\d+) -->[ \t]*(?:\r?\n|$)/gm;

export interface TextPart {
  text: string;
  marked: boolean;
}

export interface TextPage {
  /** The page number from the `<!-- page N -->` marker; null for text before any marker (unpaged formats). */
  page: number | null;
  /** Offset of the page's first character in the whole text. */
  start: number;
  parts: TextPart[];
}

/**
 * Splits extracted text at its page markers (which are dropped from what is shown) and marks the
 * characters in [markStart, markEnd): the offsets index the whole text, as citations do.
 */
export function segmentText(text: string, mark?: { start: number; end: number }): TextPage[] {
  const pages: { page: number | null; start: number; end: number }[] = [];
  let cursor = 0;
  let current: number | null = null;
  for (const m of text.matchAll(PAGE_MARKER)) {
    if (m.index > cursor || current !== null) pages.push({ page: current, start: cursor, end: m.index });
    current = Number(m[1]);
    cursor = m.index + m[0].length;
  }
  pages.push({ page: current, start: cursor, end: text.length });
  return pages
    .filter((p) => p.page !== null || p.end > p.start)
    .map((p) => ({ page: p.page, start: p.start, parts: splitMarked(text, p.start, p.end, mark) }));
}

function splitMarked(
  text: string,
  start: number,
  end: number,
  mark: { start: number; end: number } | undefined,
): TextPart[] {
  if (!mark || mark.end <= start || mark.start >= end || mark.end <= mark.start) {
    return [{ text: text.slice(start, end), marked: false }];
  }
  const a = Math.max(start, mark.start);
  const b = Math.min(end, mark.end);
  return [
    { text: text.slice(start, a), marked: false },
    { text: text.slice(a, b), marked: true },
    { text: text.slice(b, end), marked: false },
  ].filter((p) => p.text !== '');
}

/** The page an offset falls on, from the markers before it; null for unpaged text. */
export function pageAt(text: string, offset: number): number | null {
  let page: number | null = null;
  for (const m of text.matchAll(PAGE_MARKER)) {
    if (m.index > offset) break;
    page = Number(m[1]);
  }
  return page;
}

/** The passage's words (lower case, letters and digits) on one page of the text. */
export function passageWordsOnPage(text: string, start: number, end: number, page: number): string[] {
  const words: string[] = [];
  for (const p of segmentText(text, { start, end })) {
    if (p.page !== page) continue;
    for (const part of p.parts) if (part.marked) words.push(...wordsOf(part.text));
  }
  return words;
}

const WORD = /[\p{L}\p{N}]+/gu;

export function wordsOf(s: string): string[] {
  return Array.from(s.toLowerCase().matchAll(WORD), (m) => m[0]);
}

/**
 * Where the passage's words are among a page's words (as a PDF's text layer has them): the window of
 * the page's words that starts where the passage's first words match best. Undefined when fewer than
 * half of the first words can be found, so a wrong place is never highlighted.
 */
export function locateWords(
  pageWords: string[],
  passage: string[],
): { start: number; end: number } | undefined {
  if (passage.length === 0 || pageWords.length === 0) return undefined;
  const probe = Math.min(8, passage.length);
  let best = -1;
  let bestScore = 0;
  for (let i = 0; i < pageWords.length; i++) {
    let score = 0;
    for (let k = 0; k < probe && i + k < pageWords.length; k++) if (pageWords[i + k] === passage[k]) score++;
    if (score > bestScore) {
      bestScore = score;
      best = i;
      if (score === probe) break;
    }
  }
  if (best < 0 || bestScore * 2 < probe) return undefined;
  return { start: best, end: Math.min(pageWords.length, best + passage.length) };
}

/**
 * Splits a search hit's passage around the words of the query, so that the matching words can be
 * highlighted. Words shorter than three letters (a, of, to) are left alone.
 */
export function highlightTerms(passage: string, query: string): TextPart[] {
  const terms = new Set(wordsOf(query).filter((w) => w.length >= 3));
  if (terms.size === 0) return [{ text: passage, marked: false }];
  const parts: TextPart[] = [];
  let last = 0;
  for (const m of passage.matchAll(WORD)) {
    const w = m[0].toLowerCase();
    const hit = terms.has(w) || [...terms].some((t) => t.length >= 4 && w.startsWith(t));
    if (!hit) continue;
    if (m.index > last) parts.push({ text: passage.slice(last, m.index), marked: false });
    parts.push({ text: m[0], marked: true });
    last = m.index + m[0].length;
  }
  if (last < passage.length) parts.push({ text: passage.slice(last), marked: false });
  return parts;
}

/** An answer split at its `[n]` citation markers; `at` is where the part starts in the answer. */
export type AnswerPart = { at: number } & ({ text: string } | { n: number });

export function splitCitationMarkers(answer: string): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let last = 0;
  for (const m of answer.matchAll(/\[(\d+)\]/g)) {
    if (m.index > last) parts.push({ at: last, text: answer.slice(last, m.index) });
    parts.push({ at: m.index, n: Number(m[1]) });
    last = m.index + m[0].length;
  }
  if (last < answer.length) parts.push({ at: last, text: answer.slice(last) });
  return parts;
}
