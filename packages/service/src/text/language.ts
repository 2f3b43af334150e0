/// <reference path="./snowball-stemmers.d.ts" />
import { stopwords as arabic } from '@orama/stopwords/arabic';
import { stopwords as danish } from '@orama/stopwords/danish';
import { stopwords as dutch } from '@orama/stopwords/dutch';
import { stopwords as finnish } from '@orama/stopwords/finnish';
import { stopwords as french } from '@orama/stopwords/french';
import { stopwords as german } from '@orama/stopwords/german';
import { stopwords as hungarian } from '@orama/stopwords/hungarian';
import { stopwords as indonesian } from '@orama/stopwords/indonesian';
import { stopwords as italian } from '@orama/stopwords/italian';
import { stopwords as norwegian } from '@orama/stopwords/norwegian';
import { stopwords as portuguese } from '@orama/stopwords/portuguese';
import { stopwords as romanian } from '@orama/stopwords/romanian';
import { stopwords as russian } from '@orama/stopwords/russian';
import { stopwords as spanish } from '@orama/stopwords/spanish';
import { stopwords as swedish } from '@orama/stopwords/swedish';
import { stopwords as turkish } from '@orama/stopwords/turkish';
import { stopwords as ukrainian } from '@orama/stopwords/ukrainian';
import snowball from 'snowball-stemmers';
import { ENGLISH_STOP_WORDS } from './english.js';
import { type QuestionRules, questionRules } from './questions.js';
import { type Span, sentenceSpans } from './sentences.js';
import { type ApostropheRule, type Token, tokenize } from './tokens.js';

/**
 * A language as the service reads it: how its text splits into words and sentences, which words are
 * only grammar (stop words), how a word is reduced to its stem, and how its questions are asked.
 * Documents are indexed with their own language (detected, or the workspace's), questions are read
 * in theirs; everything that compares words (the index, ranking signals, snippets, the answerer)
 * takes its words from the same `Language`.
 */
export interface Language {
  /** ISO 639-1 code: `en`, `de`, `zh`… */
  readonly code: string;
  /** English name, for people. */
  readonly name: string;
  /** Every word of the text, stop words included, with offsets. */
  tokens(text: string): Token[];
  isStopWord(word: string): boolean;
  /** A word's term: its stem with accents folded (the form the index and the ranking compare). */
  term(word: string): string;
  /** The content terms of a text in order: stop words dropped, each word as its term. */
  contentTerms(text: string): string[];
  /** A question's content terms: also without the words that only ask ("how many", "combien"). */
  questionTerms(question: string): string[];
  /**
   * The terms the full-text index holds for a text, and a query asks it for: like `contentTerms`,
   * but English drops only its shortest list of stop words there (below).
   */
  indexTerms(text: string): string[];
  sentenceSpans(text: string, start?: number, end?: number): Span[];
  readonly questions: QuestionRules;
  /** Whether adjacent words may be written as one ("file name" / "filename"; German compounds). */
  readonly joinsCompounds: boolean;
}

interface LanguageSpec {
  name: string;
  /** Snowball algorithm, when the language has one. */
  stemmer?: string;
  stopWords: readonly string[];
  /**
   * Stop words of the full-text index. None but English's: BM25 weighs a frequent word down by
   * itself, and the lists at hand drop words questions need (Spanish "días", "tiempo", "valor"): on
   * the Debian Reference's tune questions, an index without them found more answers (recall@5 de 0.79
   * → 0.81, es 0.73 → 0.78, fr 0.67 → 0.69, zh 0.86 → 0.83; decision 0014).
   */
  indexStopWords?: readonly string[];
  /**
   * The index compares stems, not words, with its stop words: "once" is kept as "onc", "does" as
   * "doe". English only, because its index always did so (LanceDB's analyser stems first) and its
   * benchmarks lost passages when it stopped.
   */
  indexStopsStems?: boolean;
  apostrophes?: ApostropheRule;
  /** Abbreviations that end with a full stop without ending the sentence (lower case, no final dot). */
  abbreviations?: readonly string[];
  joinsCompounds?: boolean;
  cjkLocale?: 'ja' | 'zh';
  /**
   * How runs of Chinese/Japanese characters are cut (text/tokens.ts): by words in Chinese, in pairs
   * otherwise (Japanese, and the odd Chinese or Japanese word in a text of another language, which no
   * dictionary of that language knows).
   */
  cjk?: 'words' | 'bigrams';
}

// Particles, auxiliaries, pronouns and question words: the words of Japanese and Chinese sentences
// that carry grammar, not a topic, as ICU's segmenter returns them.
const JAPANESE_STOP_WORDS =
  'の に は を た が で て と し れ さ ある いる も する から な こと として い や れる など なっ ない この ため その あっ よう また もの という あり まで られ なる へ か だ これ によって により おり より による ず なり られる において ば なかっ なく しかし について せ だっ できる それ う ので なお のみ でき き つ における および いう さらに でも ら たり ます ん です ください どう どの どこ 何 なに なん どんな どれ どのよう ように か よ ね ましょ ませ まし でしょ でしょう いい 私 あなた 誰 いつ なぜ どうして ある いま 今'.split(
    ' ',
  );
const CHINESE_STOP_WORDS =
  '的 地 得 了 着 过 是 在 和 与 及 或 也 都 就 又 而 但 并 把 被 让 给 对 从 向 于 以 为 之 其 这 那 这个 那个 这些 那些 哪 哪个 哪些 什么 怎么 怎样 如何 为什么 吗 呢 吧 啊 我 你 他 她 它 我们 你们 他们 您 请 能 会 可以 要 应该 需要 一个 有 没有 不 很 还 个 些 么 谁 何 多少 几 是否 时候 可'.split(
    ' ',
  );

const SPECS: Record<string, LanguageSpec> = {
  en: {
    name: 'English',
    stemmer: 'english',
    stopWords: ENGLISH_STOP_WORDS,
    indexStopsStems: true,
    // The index drops the usual English list of stop words, the one LanceDB's English analyser used
    // here before languages (NLTK's): it keeps "would", "may", "must", "within", "without"…, which the
    // answerer's longer list leaves out of the words a sentence must share with a question.
    indexStopWords: ENGLISH_STOP_WORDS.filter(
      (w) =>
        !"cannot could let's ought would also may might must shall onto upon within without via per"
          .split(' ')
          .includes(w),
    ),
    abbreviations: [
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
    ],
    joinsCompounds: true,
  },
  de: {
    name: 'German',
    stemmer: 'german',
    stopWords: german,
    abbreviations: [
      'z.b',
      'bzw',
      'usw',
      'vgl',
      'ca',
      'd.h',
      'u.a',
      'evtl',
      'ggf',
      'inkl',
      'nr',
      'sog',
      'z.t',
      'etc',
      'bspw',
      'dr',
      'prof',
      'abs',
      'abb',
      'kap',
      'bd',
      'jh',
      'mio',
      'mrd',
      'u.u',
      'o.ä',
      'z.zt',
      's',
    ],
    joinsCompounds: true,
  },
  fr: {
    name: 'French',
    stemmer: 'french',
    stopWords: french,
    apostrophes: 'split',
    abbreviations: [
      'p.ex',
      'cf',
      'etc',
      'env',
      'm',
      'mme',
      'mlle',
      'no',
      'p',
      'vol',
      'chap',
      'fig',
      'éd',
      'ex',
      'c.-à-d',
      'c.à.d',
    ],
  },
  es: {
    name: 'Spanish',
    stemmer: 'spanish',
    stopWords: spanish,
    abbreviations: [
      'p.ej',
      'etc',
      'sr',
      'sra',
      'srta',
      'dr',
      'dra',
      'ud',
      'uds',
      'pág',
      'págs',
      'aprox',
      'núm',
      'vol',
      'cap',
      'fig',
      'ej',
    ],
  },
  it: {
    name: 'Italian',
    stemmer: 'italian',
    stopWords: italian,
    apostrophes: 'split',
    abbreviations: ['ad es', 'es', 'ecc', 'sig', 'sig.ra', 'dott', 'pag', 'vol', 'cap', 'fig'],
  },
  pt: {
    name: 'Portuguese',
    stemmer: 'portuguese',
    stopWords: portuguese,
    abbreviations: ['p.ex', 'ex', 'etc', 'sr', 'sra', 'dr', 'pág', 'vol', 'cap', 'fig'],
  },
  nl: {
    name: 'Dutch',
    stemmer: 'dutch',
    stopWords: dutch,
    abbreviations: ['bijv', 'bv', 'enz', 'o.a', 'd.w.z', 'nr'],
    joinsCompounds: true,
  },
  sv: {
    name: 'Swedish',
    stemmer: 'swedish',
    stopWords: swedish,
    abbreviations: ['t.ex', 'bl.a', 'osv', 'dvs', 'nr'],
    joinsCompounds: true,
  },
  no: {
    name: 'Norwegian',
    stemmer: 'norwegian',
    stopWords: norwegian,
    abbreviations: ['f.eks', 'bl.a', 'osv', 'dvs', 'nr'],
    joinsCompounds: true,
  },
  da: {
    name: 'Danish',
    stemmer: 'danish',
    stopWords: danish,
    abbreviations: ['f.eks', 'bl.a', 'osv', 'dvs', 'nr'],
    joinsCompounds: true,
  },
  fi: { name: 'Finnish', stemmer: 'finnish', stopWords: finnish },
  ru: {
    name: 'Russian',
    stemmer: 'russian',
    stopWords: russian,
    abbreviations: ['т.е', 'т.д', 'т.п', 'др', 'стр', 'см'],
  },
  uk: { name: 'Ukrainian', stopWords: ukrainian },
  hu: { name: 'Hungarian', stemmer: 'hungarian', stopWords: hungarian },
  ro: { name: 'Romanian', stemmer: 'romanian', stopWords: romanian },
  tr: { name: 'Turkish', stemmer: 'turkish', stopWords: turkish },
  ar: { name: 'Arabic', stemmer: 'arabic', stopWords: arabic },
  ca: { name: 'Catalan', stemmer: 'catalan', stopWords: [], apostrophes: 'split' },
  cs: { name: 'Czech', stemmer: 'czech', stopWords: [] },
  id: { name: 'Indonesian', stopWords: indonesian },
  ja: { name: 'Japanese', stopWords: JAPANESE_STOP_WORDS, cjkLocale: 'ja', cjk: 'bigrams' },
  zh: { name: 'Chinese', stopWords: CHINESE_STOP_WORDS, cjkLocale: 'zh', cjk: 'words' },
};

/** Codes of the languages with their own stemming or word segmentation, stop words and sentence rules. */
export const SUPPORTED_LANGUAGES: readonly string[] = Object.keys(SPECS);

/** Letters without their accents, for words written in the Latin alphabet only ("für" ≈ "fur"). */
const LATIN_ONLY = /^[\p{Script=Latin}\p{N}'’]+$/u;
function fold(word: string): string {
  return LATIN_ONLY.test(word) ? word.normalize('NFD').replace(/\p{M}/gu, '') : word;
}

/** Words longer than this are codes or garbage; a stemmer's work on them would be wasted. */
const MAX_STEMMED_LENGTH = 40;

class SpecLanguage implements Language {
  readonly questions: QuestionRules;
  readonly joinsCompounds: boolean;
  private readonly stopWords: ReadonlySet<string>;
  private readonly indexStopWords: ReadonlySet<string>;
  private readonly stemmer: { stem(w: string): string } | undefined;
  // Ranking and snippets ask for the same words over and over: remembered (bounded, cleared when full).
  private readonly terms = new Map<string, string>();
  private readonly abbreviations: ReadonlySet<string>;

  constructor(
    readonly code: string,
    private readonly spec: LanguageSpec,
  ) {
    this.questions = questionRules(code);
    this.joinsCompounds = spec.joinsCompounds ?? false;
    this.stopWords = new Set(spec.stopWords);
    this.indexStopWords = spec.indexStopWords ? new Set(spec.indexStopWords) : new Set();
    this.stemmer = spec.stemmer ? snowball.newStemmer(spec.stemmer) : undefined;
    this.abbreviations = new Set(spec.abbreviations ?? []);
  }

  get name(): string {
    return this.spec.name;
  }

  tokens(text: string): Token[] {
    return tokenize(text, {
      apostrophes: this.spec.apostrophes,
      cjkLocale: this.spec.cjkLocale,
      cjk: this.spec.cjk ?? 'bigrams',
    });
  }

  isStopWord(word: string): boolean {
    return this.stopWords.has(word);
  }

  term(word: string): string {
    let t = this.terms.get(word);
    if (t === undefined) {
      if (this.terms.size > 100_000) this.terms.clear();
      t = fold(this.stemOf(word));
      this.terms.set(word, t);
    }
    return t;
  }

  private stemOf(word: string): string {
    return this.stemmer && word.length <= MAX_STEMMED_LENGTH && !/\d/.test(word)
      ? this.stemmer.stem(word)
      : word;
  }

  contentTerms(text: string): string[] {
    return this.termsWithout(text, this.stopWords, true);
  }

  questionTerms(question: string): string[] {
    return this.contentTerms(question.replace(this.questions.asking, ' '));
  }

  indexTerms(text: string): string[] {
    if (!this.spec.indexStopsStems) return this.termsWithout(text, this.indexStopWords, false);
    const out: string[] = [];
    for (const { word } of this.tokens(text)) {
      const stem = this.stemOf(word);
      if (!this.indexStopWords.has(stem)) out.push(fold(stem));
    }
    return out;
  }

  /** Terms of the words that are not stop words (nor, for matching sentences, single Latin letters). */
  private termsWithout(text: string, stop: ReadonlySet<string>, dropLetters: boolean): string[] {
    const out: string[] = [];
    for (const { word } of this.tokens(text)) {
      if (stop.has(word)) continue;
      if (dropLetters && word.length < 2 && /^[a-z]$/.test(word)) continue;
      out.push(this.term(word));
    }
    return out;
  }

  sentenceSpans(text: string, start = 0, end = text.length): Span[] {
    return sentenceSpans(text, start, end, this.abbreviations);
  }
}

const languages = new Map<string, Language>();

/** The base code of a language tag: `zh-CN` → `zh`, `pt-BR` → `pt`, `EN` → `en`. */
export function baseLanguage(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/, 1)[0] ?? '';
}

/**
 * The `Language` for a code. A language the service has no rules for is read word by word without
 * stemming or stop words (still correct, less forgiving of inflections), and declines in English.
 */
export function languageFor(code: string | null | undefined): Language {
  const base = baseLanguage(code ?? 'en') || 'en';
  let lang = languages.get(base);
  if (!lang) {
    lang = new SpecLanguage(base, SPECS[base] ?? { name: base, stopWords: [] });
    languages.set(base, lang);
  }
  return lang;
}

export const ENGLISH: Language = languageFor('en');
