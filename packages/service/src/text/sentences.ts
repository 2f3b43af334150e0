/** A half-open range of character offsets. */
export type Span = [start: number, end: number];

/** Sentence ends of Chinese and Japanese: full-width, and followed by no space. */
const CJK_ENDS = new Set(['。', '！', '？']);
/** The characters that can end a sentence or a block: the scan jumps from one to the next. */
const BREAKS = /[\n.!?…。！？]/g;

/**
 * Splits `text[start, end)` into sentence spans (offsets into `text`), trimmed of surrounding
 * whitespace. Line breaks that separate blocks (blank lines, list items, table rows) end sentences too.
 * A full stop after one of `abbreviations` (the language's, lower case without the final dot) or
 * after a single letter does not end a sentence. Most callers go through `Language.sentenceSpans`.
 */
export function sentenceSpans(
  text: string,
  start = 0,
  end = text.length,
  abbreviations: ReadonlySet<string> = new Set(),
): Span[] {
  const spans: Span[] = [];
  let s = start;
  const push = (a: number, b: number) => {
    while (a < b && /\s/.test(text[a]!)) a++;
    while (b > a && /\s/.test(text[b - 1]!)) b--;
    if (b > a) spans.push([a, b]);
  };
  let lineStart = start;
  // A regular expression finds the next candidate faster than a loop looks at every character. It
  // searches the range only: over the whole text, each call for a range without a break (a chunk of
  // a text with no full stops) read on to the text's end, and chunking a large text took minutes.
  const range = start === 0 && end === text.length ? text : text.slice(start, end);
  for (let i = start; i < end; i++) {
    BREAKS.lastIndex = i - start;
    const found = BREAKS.exec(range);
    if (!found) break;
    i = found.index + start;
    const c = text[i]!;
    if (c === '\n') {
      // A single newline inside a paragraph is a soft wrap; a blank line or a structural line breaks,
      // and so does the end of a line that is itself structure: a heading or a table row is one line,
      // never the start of the sentence below it ("# Boats\nThe ferry leaves at nine.").
      const next = text.slice(i + 1, Math.min(end, i + 4));
      const line = text.slice(lineStart, Math.min(i, lineStart + 8));
      lineStart = i + 1;
      if (/^\s*\n/.test(next) || /^\s*([-*+]|\d+\.|\||#)/.test(next) || /^\s{0,3}(#{1,6}\s|\|)/.test(line)) {
        push(s, i);
        s = i + 1;
      }
      continue;
    }
    if (CJK_ENDS.has(c)) {
      let j = i + 1;
      while (j < end && /[」』）)”’]/.test(text[j]!)) j++;
      // A straight quote is the same character open and closed: after the full stop it closes a
      // quotation the sentence opened, or opens the next sentence's ("…いけません。"test" は…").
      if (text[j] === '"' && closesQuote(text, s, j)) j++;
      push(s, j);
      s = j;
      i = j - 1;
      continue;
    }
    if (c !== '.' && c !== '!' && c !== '?' && c !== '…') continue;
    let j = i + 1;
    while (j < end && /["')\]»”’]/.test(text[j]!)) j++;
    if (j < end && !/\s/.test(text[j]!)) continue;
    let k = j;
    while (k < end && /[ \t]/.test(text[k]!)) k++;
    if (k < end && /\p{Ll}/u.test(text[k]!)) continue; // "e.g. the" or "approx. five"
    if (c === '.') {
      // The letters and dots just before the full stop (at most 12).
      let w = i;
      while (w > Math.max(start, i - 12) && /[\p{L}.]/u.test(text[w - 1]!)) w--;
      const word = w < i ? text.slice(w, i).toLowerCase() : undefined;
      if (word && (abbreviations.has(word) || /^\p{Ll}$/u.test(word))) continue;
      if (/\d$/.test(text.slice(i - 1, i)) && /\d/.test(text[k] ?? '')) continue; // "3. 5" in lists of numbers
    }
    push(s, j);
    s = j;
    i = j - 1;
  }
  push(s, end);
  return spans;
}

/** Whether a straight double quote at `at` closes one opened in text[from, at): an odd count of them there. */
function closesQuote(text: string, from: number, at: number): boolean {
  let n = 0;
  for (let k = text.indexOf('"', from); k >= 0 && k < at; k = text.indexOf('"', k + 1)) n++;
  return n % 2 === 1;
}
