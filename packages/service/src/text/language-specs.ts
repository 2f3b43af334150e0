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
import { ENGLISH_STOP_WORDS } from './english.js';
import type { ApostropheRule } from './tokens.js';
import { type BaseForm, englishBaseForm } from './word-forms.js';

/** How each language the service knows is read (text/language.ts makes a Language of each). */
export interface LanguageSpec {
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
  /**
   * Compounds are split into their parts, in the index and in questions, where the language has a
   * word list to split by (text/compounds.ts; German only: the registry has no Dutch or Nordic list).
   */
  splitsCompounds?: boolean;
  cjkLocale?: 'ja' | 'zh';
  /**
   * How runs of Chinese/Japanese characters are cut (text/tokens.ts): by words in Chinese, in pairs
   * otherwise (Japanese, and the odd Chinese or Japanese word in a text of another language, which no
   * dictionary of that language knows).
   */
  cjk?: 'words' | 'bigrams';
  /**
   * Words (pairs, for Japanese) that carry grammar by their script alone, left out of the terms a
   * question and a sentence are compared by, though the index keeps them: a Japanese pair holding
   * hiragana is a particle, an ending or an auxiliary ("ます"), or straddles one ("を変"); the topic
   * is in kanji and katakana. On the tune questions, leaving out the pairs wholly in hiragana took
   * unanswerable ones declined from 3 to 4 of 11, leaving out every pair holding any to 8 of 11,
   * and answers holding the answer from 0.36 to 0.44 (decision 0014).
   */
  grammarWords?: RegExp;
  /**
   * A word form's base word where the stemmer keeps them apart ("longer" → "long", "went" → "go";
   * text/word-forms.ts), for the terms a question and a sentence are compared by. The index and the
   * query it is asked keep the stemmer's terms: a workspace indexed before needs no new index.
   */
  baseForm?: BaseForm;
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

export const SPECS: Record<string, LanguageSpec> = {
  en: {
    name: 'English',
    stemmer: 'english',
    stopWords: ENGLISH_STOP_WORDS,
    indexStopsStems: true,
    baseForm: englishBaseForm,
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
    splitsCompounds: true,
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
  ja: {
    name: 'Japanese',
    stopWords: JAPANESE_STOP_WORDS,
    cjkLocale: 'ja',
    cjk: 'bigrams',
    grammarWords: /\p{Script=Hiragana}/u,
  },
  zh: { name: 'Chinese', stopWords: CHINESE_STOP_WORDS, cjkLocale: 'zh', cjk: 'words' },
};

/** Codes of the languages with their own stemming or word segmentation, stop words and sentence rules. */
export const SUPPORTED_LANGUAGES: readonly string[] = Object.keys(SPECS);
