/**
 * The one tokenizer: every part of the service that splits text into words (the index's terms, the
 * word codes used for ranking, snippets, the answerer) goes through `tokenize`, so a word is the same
 * word everywhere.
 *
 * Words are runs of letters and digits of any script. Runs of Chinese or Japanese characters, which
 * are written without spaces, are cut into words by ICU's dictionary segmenter (`Intl.Segmenter`,
 * offline in Node's full ICU); measured against character bigrams in docs/decisions/0013.
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

/**
 * Words of `text` in order, with offsets into `text`. A run of Chinese or Japanese characters is
 * segmented into its words (the segmenter is given one run at a time: on a whole document at once it
 * is orders of magnitude slower).
 */
export function tokenize(text: string, options: TokenizeOptions = {}): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    const raw = m[0];
    const at = m.index;
    if (CJK.test(raw)) {
      const locale = options.cjkLocale ?? (KANA.test(raw) ? 'ja' : 'zh');
      for (const s of segmenter(locale).segment(raw)) {
        if (!s.isWordLike) continue;
        out.push({
          start: at + s.index,
          end: at + s.index + s.segment.length,
          word: normalizeWord(s.segment),
        });
      }
      continue;
    }
    const apostrophe = options.apostrophes === 'split' ? raw.search(/['’]/) : -1;
    if (apostrophe > 0) {
      out.push({ start: at, end: at + apostrophe, word: normalizeWord(raw.slice(0, apostrophe)) });
      out.push({
        start: at + apostrophe + 1,
        end: at + raw.length,
        word: normalizeWord(raw.slice(apostrophe + 1)),
      });
      continue;
    }
    out.push({ start: at, end: at + raw.length, word: normalizeWord(raw) });
  }
  return out;
}
