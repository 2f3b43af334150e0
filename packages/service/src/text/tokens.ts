/**
 * The one tokenizer: every part of the service that splits text into words (the index's terms, the
 * word codes used for ranking, snippets, the answerer) goes through `tokenize`, so a word is the same
 * word everywhere.
 *
 * Words are runs of letters and digits of any script. Runs of Chinese or Japanese characters, which
 * are written without spaces, are cut into words by ICU's dictionary segmenter (`Intl.Segmenter`,
 * offline in Node's full ICU), or into overlapping pairs of characters: measured on the Debian
 * Reference's tune questions (docs/decisions/0014-languages.md), Chinese is found better by its words
 * (answer recall@5 0.86 against 0.70) and Japanese by pairs (0.72 against 0.62).
 */

/** A word of a text: where it stands, and its form for comparison (lower case, NFKC). */
export interface Token {
  start: number;
  end: number;
  word: string;
}

/** A word, with one optional apostrophe and letters ("don't", "l'heure"). Linear: no nested quantifiers. */
const WORD = /[\p{L}\p{N}]+(?:['’]\p{L}+)?/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const ASCII = /^[\x00-\x7f]*$/;

/** Splitting "l'heure" into "l" and "heure": the elided article is a word of its own in these languages. */
export type ApostropheRule = 'keep' | 'split';

export interface TokenizeOptions {
  apostrophes?: ApostropheRule | undefined;
  /** Locale for the segmenter of Chinese/Japanese runs; by default, Japanese when the run has kana. */
  cjkLocale?: 'ja' | 'zh' | undefined;
  /** Chinese/Japanese runs cut into dictionary words (the default) or overlapping character pairs. */
  cjk?: 'words' | 'bigrams' | undefined;
}

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(locale, s);
  }
  return s;
}

/** The comparable form of a word: lower case; full-width and compatibility forms folded (NFKC). */
export function normalizeWord(word: string): string {
  const lower = word.toLowerCase();
  return ASCII.test(lower) ? lower : lower.normalize('NFKC');
}

export function hasCjk(text: string): boolean {
  return CJK.test(text);
}

/** Runs of Chinese/Japanese characters within a word, and the rest ("libtasn1は" → "libtasn1", "は"). */
const CJK_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc]+/gu;

/**
 * Words of `text` in order, with offsets into `text`. A run of Chinese or Japanese characters is cut
 * into words or pairs of characters (the segmenter is given one run at a time: on a whole document at
 * once it is orders of magnitude slower); letters of other scripts written against it are a word of
 * their own.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    const raw = m[0];
    const at = m.index;
    if (!CJK.test(raw)) {
      wordTokens(raw, at, options, out);
      continue;
    }
    for (const part of raw.matchAll(CJK_RUN)) {
      if (CJK.test(part[0])) cjkTokens(part[0], at + part.index, options, out);
      else wordTokens(part[0], at + part.index, options, out);
    }
  }
  return out;
}

function cjkTokens(run: string, at: number, options: TokenizeOptions, out: Token[]): void {
  if (options.cjk === 'bigrams') {
    if (run.length === 1) out.push({ start: at, end: at + 1, word: normalizeWord(run) });
    for (let i = 0; i + 1 < run.length; i++)
      out.push({ start: at + i, end: at + i + 2, word: normalizeWord(run.slice(i, i + 2)) });
    return;
  }
  const locale = options.cjkLocale ?? (KANA.test(run) ? 'ja' : 'zh');
  // A long run goes to the segmenter a window at a time: each window but the run's last leaves its
  // last word (which the window's end may cut) to the next, which starts where that word does.
  let from = 0;
  while (from < run.length) {
    let to = Math.min(run.length, from + SEGMENT_WINDOW);
    if (to < run.length && isHighSurrogate(run.charCodeAt(to - 1))) to--;
    const segments = [...segmenter(locale).segment(run.slice(from, to))];
    const last = to < run.length && segments.length > 1 ? segments.length - 1 : segments.length;
    for (let k = 0; k < last; k++) {
      const s = segments[k]!;
      if (!s.isWordLike) continue;
      const start = at + from + s.index;
      out.push({ start, end: start + s.segment.length, word: normalizeWord(s.segment) });
    }
    from = last < segments.length ? from + segments[last]!.index : to;
  }
}

/**
 * The most characters of one run given to ICU's segmenter at once: it slows down sharply on long
 * runs (on one machine a run of 60,000 Han characters took 0.25 s, one of 100,000 took 8 s, of kana
 * 27 s; test/unit/hostile-patterns.test.ts). Real text breaks its runs with punctuation far sooner.
 */
const SEGMENT_WINDOW = 1_000;
const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

function wordTokens(raw: string, at: number, options: TokenizeOptions, out: Token[]): void {
  const apostrophe = options.apostrophes === 'split' ? raw.search(/['’]/) : -1;
  if (apostrophe > 0) {
    out.push({ start: at, end: at + apostrophe, word: normalizeWord(raw.slice(0, apostrophe)) });
    out.push({
      start: at + apostrophe + 1,
      end: at + raw.length,
      word: normalizeWord(raw.slice(apostrophe + 1)),
    });
    return;
  }
  out.push({ start: at, end: at + raw.length, word: normalizeWord(raw) });
}

const APOSTROPHE = 39;
const isAsciiLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isAsciiAlnum = (c: number) => isAsciiLetter(c) || (c >= 48 && c <= 57);

/**
 * Where `tokenize` puts each word, as [start, end] pairs in order, without making the words: what a
 * snippet needs once the passage's stored word codes say which words are the query's. Tokenising a
 * page of passages whole was a tenth of a search's main-thread time (issue 25's profile).
 *
 * A word never crosses an ASCII character other than a letter, a digit or an apostrophe, so the text
 * is cut there into pieces that are tokenised apart with the same result. A piece of ASCII letters,
 * digits and apostrophes is scanned by character code; any other piece goes through `tokenize`.
 */
export function tokenBounds(text: string, options: TokenizeOptions = {}): number[] {
  const out: number[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 128 && c !== APOSTROPHE && !isAsciiAlnum(c)) {
      i++;
      continue;
    }
    let j = i;
    let ascii = true;
    for (; j < n; j++) {
      const d = text.charCodeAt(j);
      if (d >= 128) ascii = false;
      else if (d !== APOSTROPHE && !isAsciiAlnum(d)) break;
    }
    if (ascii) asciiBounds(text, i, j, options.apostrophes === 'split', out);
    else for (const t of tokenize(text.slice(i, j), options)) out.push(i + t.start, i + t.end);
    i = j;
  }
  return out;
}

/** `tokenBounds` of text[from, to), which holds only ASCII letters, digits and apostrophes. */
function asciiBounds(text: string, from: number, to: number, split: boolean, out: number[]): void {
  let k = from;
  while (k < to) {
    if (text.charCodeAt(k) === APOSTROPHE) {
      k++;
      continue;
    }
    const start = k;
    while (k < to && isAsciiAlnum(text.charCodeAt(k))) k++;
    // WORD's optional tail: one apostrophe and the letters after it.
    if (k + 1 < to && text.charCodeAt(k) === APOSTROPHE && isAsciiLetter(text.charCodeAt(k + 1))) {
      const apostrophe = k;
      k += 2;
      while (k < to && isAsciiLetter(text.charCodeAt(k))) k++;
      if (split) {
        out.push(start, apostrophe, apostrophe + 1, k);
        continue;
      }
    }
    out.push(start, k);
  }
}
