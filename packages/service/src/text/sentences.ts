/** A half-open range of character offsets. */
export type Span = [start: number, end: number];

const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'etc',
  'vs',
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'no',
  'fig',
  'figs',
  'eq',
  'al',
  'approx',
  'ca',
  'cf',
  'inc',
  'ltd',
  'co',
  'corp',
  'dept',
  'vol',
  'pp',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'u.s',
  'u.k',
]);

/**
 * Splits `text[start, end)` into sentence spans (offsets into `text`), trimmed of surrounding
 * whitespace. Line breaks that separate blocks (blank lines, list items, table rows) end sentences too.
 */
export function sentenceSpans(text: string, start = 0, end = text.length): Span[] {
  const spans: Span[] = [];
  let s = start;
  const push = (a: number, b: number) => {
    while (a < b && /\s/.test(text[a]!)) a++;
    while (b > a && /\s/.test(text[b - 1]!)) b--;
    if (b > a) spans.push([a, b]);
  };
  let lineStart = start;
  for (let i = start; i < end; i++) {
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
    if (c !== '.' && c !== '!' && c !== '?' && c !== '…') continue;
    let j = i + 1;
    while (j < end && /["')\]»”’]/.test(text[j]!)) j++;
    if (j < end && !/\s/.test(text[j]!)) continue;
    let k = j;
    while (k < end && /[ \t]/.test(text[k]!)) k++;
    if (k < end && /[a-z]/.test(text[k]!)) continue; // "e.g. the" or "approx. five"
    if (c === '.') {
      // The letters and dots just before the full stop (at most 12).
      let w = i;
      while (w > Math.max(start, i - 12) && /[A-Za-z.]/.test(text[w - 1]!)) w--;
      const word = w < i ? text.slice(w, i).toLowerCase() : undefined;
      if (word && (ABBREVIATIONS.has(word) || /^[a-z]$/.test(word))) continue;
      if (/\d$/.test(text.slice(i - 1, i)) && /\d/.test(text[k] ?? '')) continue; // "3. 5" in lists of numbers
    }
    push(s, j);
    s = j;
    i = j - 1;
  }
  push(s, end);
  return spans;
}
