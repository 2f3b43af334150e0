/**
 * Where a document's stored text (UTF-8) holds what: its length in the offsets citations use (UTF-16
 * units, as JavaScript counts), a byte offset every STEP units, and where each page starts. With it a
 * reader takes a window of a 30 MB text by reading a megabyte of it, not the whole (issue 44,
 * finding 6). Made beside the chunks, in the thread that passes over the whole text anyway.
 */
export interface TextMap {
  version: 1;
  /** The text's length in UTF-16 units. */
  chars: number;
  /** Its length in UTF-8 bytes, as stored. */
  bytes: number;
  /** `[units, bytes]` at the start of the text and every STEP units on (never inside a surrogate pair). */
  marks: [number, number][];
  /** `[page, units]` of each `<!-- page N -->` line. */
  pages: [number, number][];
}

/** Units between two marks: a read takes at most this many more than it returns, at each end. */
export const TEXT_MAP_STEP = 65_536;

/** Where each page starts in a text with `<!-- page N -->` lines (the parsers' page markers). */
export function pageStarts(text: string): { page: number; at: number }[] {
  return [...text.matchAll(/^<!-- page (\d+) -->$/gm)].map((m) => ({ page: Number(m[1]), at: m.index }));
}

/** The map of `text`; `step` other than TEXT_MAP_STEP only for tests that need marks close together. */
export function textMapOf(text: string, step = TEXT_MAP_STEP): TextMap {
  const marks: [number, number][] = [];
  let bytes = 0;
  for (let at = 0; at < text.length; ) {
    marks.push([at, bytes]);
    let end = Math.min(text.length, at + step);
    // A high surrogate ends the step: its pair stays in one piece (alone, either half is stored as
    // U+FFFD, three bytes, one unit, so the offsets hold either way).
    if (end < text.length && end - at > 1 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    bytes += Buffer.byteLength(text.slice(at, end), 'utf8');
    at = end;
  }
  if (marks.length === 0) marks.push([0, 0]);
  return {
    version: 1,
    chars: text.length,
    bytes,
    marks,
    pages: pageStarts(text).map((p) => [p.page, p.at]),
  };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The bytes to read for units `from`..`to`: from the mark at or before `from` to the one at or after `to`. */
export function byteRange(
  map: TextMap,
  from: number,
  to: number,
): { start: number; end: number; startUnit: number } {
  let lo = 0;
  let hi = map.marks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (map.marks[mid]![0] <= from) lo = mid;
    else hi = mid - 1;
  }
  const [startUnit, start] = map.marks[lo]!;
  let next = lo;
  while (next < map.marks.length && map.marks[next]![0] < to) next++;
  const end = next < map.marks.length ? map.marks[next]![1] : map.bytes;
  return { start, end, startUnit };
}
