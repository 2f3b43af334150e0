import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Lexicon, Lexicons } from '../../domain/ports.js';
import { packageRoot } from '../../paths.js';
import { loadWordNetLexicon } from './wordnet.js';

/** The languages the build writes a word list for (packages/service/scripts/build.mjs). */
export const WORD_LIST_LANGUAGES = ['de', 'es', 'fr'] as const;

/** Where the build writes a language's word list. */
export const wordListFile = (code: string) => path.join(packageRoot(), 'dist', `words-${code}.txt`);

/** Where the build writes the forms a language's list writes in lower case (German only). */
export const lowerCaseListFile = (code: string) =>
  path.join(packageRoot(), 'dist', `words-${code}-lower.txt`);

const fold = (w: string) => w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * A language's word forms, sorted, in one string searched by halves: the lists hold 300,000 to 1.2
 * million forms, which as a Set of strings would take several times the 4–16 MB of their text.
 */
export class SortedWordList implements Lexicon {
  private readonly starts: Uint32Array;

  /**
   * `text`: the forms, sorted, one per line, lower case without accents. `compounds`: a word the list
   * lacks counts when it splits into two or three words of the list of 3 letters or more ("urlaubs" +
   * "tage"), as German writes them.
   */
  constructor(
    private readonly text: string,
    private readonly compounds = false,
    /** The forms the list writes in lower case, when the list keeps case (German). */
    private readonly lower?: SortedWordList,
  ) {
    const starts: number[] = [];
    for (let at = 0; at < text.length; at = text.indexOf('\n', at) + 1 || text.length) {
      if (text[at] !== '#' && text[at] !== '\n') starts.push(at);
    }
    this.starts = Uint32Array.from(starts);
  }

  get size(): number {
    return this.starts.length;
  }

  /** Compares line `i` with `form` in place (an index build asks millions of times: no slices). */
  private compare(i: number, form: string): number {
    const start = this.starts[i]!;
    const text = this.text;
    for (let k = 0; ; k++) {
      const c = start + k < text.length ? text.charCodeAt(start + k) : 10;
      const line = c === 10 ? -1 : c;
      const f = k < form.length ? form.charCodeAt(k) : -1;
      if (line !== f) return line - f;
      if (line === -1) return 0;
    }
  }

  has(form: string): boolean {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const order = this.compare(mid, form);
      if (order === 0) return true;
      if (order < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  lists(form: string): boolean {
    return this.has(fold(form));
  }

  writtenLowerCase(form: string): boolean {
    return this.lower?.has(fold(form)) ?? false;
  }

  isWord(word: string): boolean {
    const w = fold(word);
    return this.has(w) || (this.compounds && this.splits(w, 3));
  }

  /**
   * Whether `w` is made of up to `parts` words of the list of 3 letters or more, a word before another
   * perhaps with the linking "s" German puts between them ("sicherheit·s·aktualisierungen").
   */
  private splits(w: string, parts: number): boolean {
    if (parts < 2) return false;
    for (let i = 3; i <= w.length - 3; i++) {
      const head = w.slice(0, i);
      if (!this.has(head) && !(head.endsWith('s') && this.has(head.slice(0, -1)))) continue;
      const rest = w.slice(i);
      if (this.has(rest) || this.splits(rest, parts - 1)) return true;
    }
    return false;
  }

  /** The lists say nothing of parts of speech: no word is known to be a noun only. */
  isNounOnly(): boolean {
    return false;
  }
}

/** A word list the build wrote; a missing file is an error the caller reports. */
export async function loadWordList(code: string, file = wordListFile(code)): Promise<SortedWordList> {
  const german = code === 'de';
  const lower = german ? new SortedWordList(await readFile(lowerCaseListFile(code), 'utf8')) : undefined;
  return new SortedWordList(await readFile(file, 'utf8'), german, lower);
}

/**
 * The lexicon of each language that has one: English (WordNet) read at start, the others on the
 * first question in them (each takes 5–20 MB). A list the build did not write leaves its language
 * without the absent-word rule, reported once through `onMissing`.
 */
export class BuiltLexicons implements Lexicons {
  private readonly loading = new Map<string, Promise<Lexicon | undefined>>();

  constructor(private readonly onMissing: (code: string, err: unknown) => void) {}

  /** Reads the English lexicon now, so that a missing build shows at start. */
  async preload(): Promise<this> {
    await this.forLanguage('en');
    return this;
  }

  forLanguage(code: string): Promise<Lexicon | undefined> {
    let lexicon = this.loading.get(code);
    if (!lexicon) {
      const load =
        code === 'en'
          ? loadWordNetLexicon()
          : (WORD_LIST_LANGUAGES as readonly string[]).includes(code)
            ? loadWordList(code)
            : undefined;
      lexicon = load
        ? load.catch((err: unknown) => {
            this.onMissing(code, err);
            return undefined;
          })
        : Promise.resolve(undefined);
      this.loading.set(code, lexicon);
    }
    return lexicon;
  }
}

/** Lexicons given outright, for tests and benchmarks. */
export function fixedLexicons(byLanguage: Record<string, Lexicon | undefined>): Lexicons {
  return { forLanguage: async (code) => byLanguage[code] };
}
