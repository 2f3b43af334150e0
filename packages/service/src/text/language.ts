/// <reference path="./snowball-stemmers.d.ts" />
import snowball from 'snowball-stemmers';
import type { CompoundSplitter } from './compounds.js';
import { type LanguageSpec, SPECS, SUPPORTED_LANGUAGES } from './language-specs.js';

export { SUPPORTED_LANGUAGES };

import { type QuestionRules, questionRules } from './questions.js';
import { type ReferenceRules, referenceRules } from './references.js';
import { type Span, sentenceSpans } from './sentences.js';
import { type Token, type TokenizeOptions, tokenBounds, tokenize } from './tokens.js';

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
  /** Where each of `tokens(text)` starts and ends, as [start, end] pairs, without making the words. */
  tokenBounds(text: string): number[];
  isStopWord(word: string): boolean;
  /** A word's term: its stem with accents folded (the form the index and the ranking compare). */
  term(word: string): string;
  /** Every word of the text as its term, stop words included. */
  terms(text: string): string[];
  /**
   * The content terms of a text in order: stop words dropped, each word as its term, a word form as
   * its base word's ("longer" as "long", "children" as "child": text/word-forms.ts). With `split`, a
   * compound's parts' terms follow its own (text/compounds.ts).
   */
  contentTerms(text: string, split?: CompoundSplitter): string[];
  /**
   * The terms a query is matched on: its content terms as the index holds them (word forms as the
   * stemmer reads them), or all of them when it has only stop words.
   */
  queryTerms(query: string): string[];
  /**
   * A question's content terms: also without the words that only ask ("how many", "combien"), word
   * forms as their base words, as `contentTerms` reads a sentence. With
   * `split`, a compound is asked as its parts ("Druckerwarteschlange" → "druck", "warteschlang"), which
   * passages hold whether they join them or write them apart.
   */
  questionTerms(question: string, split?: CompoundSplitter): string[];
  /**
   * The terms the full-text index holds for a text, and a query asks it for: like `contentTerms`,
   * but English drops only its shortest list of stop words there (below).
   */
  indexTerms(text: string): string[];
  /** One word as `indexTerms` reads it: its term, or undefined when the index leaves it out. */
  indexTerm(word: string): string | undefined;
  sentenceSpans(text: string, start?: number, end?: number): Span[];
  readonly questions: QuestionRules;
  /** How a question points back at the turns before it (text/references.ts). */
  readonly references: ReferenceRules;
  /** Whether adjacent words may be written as one ("file name" / "filename"; German compounds). */
  readonly joinsCompounds: boolean;
  /** Whether compounds are split into their parts where a word list allows (text/compounds.ts). */
  readonly splitsCompounds: boolean;
  /** Whether the language is written in the Latin alphabet (a Latin word in a Russian or Chinese question is a name). */
  readonly latinScript: boolean;
}

/** Languages eld tells that are written in another alphabet than Latin. */
const OTHER_SCRIPTS = new Set(
  'am ar be bg bn el fa gu he hi hy ja ka kn ko mk ml mr ne pa ru si sr ta te th uk ur zh'.split(' '),
);

/** Letters without their accents, for words written in the Latin alphabet only ("für" ≈ "fur"). */
const LATIN_ONLY = /^[\p{Script=Latin}\p{N}'’]+$/u;
function fold(word: string): string {
  return LATIN_ONLY.test(word) ? word.normalize('NFD').replace(/\p{M}/gu, '') : word;
}

/** Words longer than this are codes or garbage; a stemmer's work on them would be wasted. */
const MAX_STEMMED_LENGTH = 40;

class SpecLanguage implements Language {
  readonly questions: QuestionRules;
  readonly references: ReferenceRules;
  readonly joinsCompounds: boolean;
  readonly splitsCompounds: boolean;
  private readonly stopWords: ReadonlySet<string>;
  private readonly indexStopWords: ReadonlySet<string>;
  private readonly stemmer: { stem(w: string): string } | undefined;
  // Ranking and snippets ask for the same words over and over: remembered (bounded, cleared when full).
  private readonly termCache = new Map<string, string>();
  private readonly stemCache = new Map<string, string>();
  private readonly abbreviations: ReadonlySet<string>;
  private readonly tokenizeOptions: TokenizeOptions;

  constructor(
    readonly code: string,
    private readonly spec: LanguageSpec,
  ) {
    this.questions = questionRules(code);
    this.references = referenceRules(code);
    this.joinsCompounds = spec.joinsCompounds ?? false;
    this.splitsCompounds = spec.splitsCompounds ?? false;
    this.stopWords = new Set(spec.stopWords);
    this.indexStopWords = spec.indexStopWords ? new Set(spec.indexStopWords) : new Set();
    this.stemmer = spec.stemmer ? snowball.newStemmer(spec.stemmer) : undefined;
    this.abbreviations = new Set(spec.abbreviations ?? []);
    this.tokenizeOptions = {
      apostrophes: spec.apostrophes,
      cjkLocale: spec.cjkLocale,
      cjk: spec.cjk ?? 'bigrams',
    };
  }

  get name(): string {
    return this.spec.name;
  }

  get latinScript(): boolean {
    return !OTHER_SCRIPTS.has(this.code);
  }

  tokens(text: string): Token[] {
    return tokenize(text, this.tokenizeOptions);
  }

  tokenBounds(text: string): number[] {
    return tokenBounds(text, this.tokenizeOptions);
  }

  isStopWord(word: string): boolean {
    return this.stopWords.has(word);
  }

  term(word: string): string {
    let t = this.termCache.get(word);
    if (t === undefined) {
      if (this.termCache.size > 100_000) this.termCache.clear();
      t = fold(this.stemOf(word));
      this.termCache.set(word, t);
    }
    return t;
  }

  private stemOf(word: string): string {
    if (!this.stemmer || word.length > MAX_STEMMED_LENGTH || /\d/.test(word)) return word;
    // The Snowball stemmers cost about 10 µs a word: a query's stems were a twentieth of a search's
    // main-thread time before they were remembered (issue 25's profile).
    let stem = this.stemCache.get(word);
    if (stem === undefined) {
      if (this.stemCache.size > 100_000) this.stemCache.clear();
      stem = this.stemmer.stem(word);
      this.stemCache.set(word, stem);
    }
    return stem;
  }

  terms(text: string): string[] {
    return this.tokens(text).map((t) => this.term(t.word));
  }

  contentTerms(text: string, split?: CompoundSplitter): string[] {
    return this.termsWithout(text, this.stopWords, true, split && { split, whole: true }, true);
  }

  queryTerms(query: string): string[] {
    // Snippets mark a query's words by the index's word codes, which hold the stemmer's terms.
    const content = this.termsWithout(query, this.stopWords, true);
    return content.length ? content : this.terms(query);
  }

  questionTerms(question: string, split?: CompoundSplitter): string[] {
    const text = question.replace(this.questions.asking, ' ');
    return this.termsWithout(text, this.stopWords, true, split && { split, whole: false }, true);
  }

  indexTerms(text: string): string[] {
    const out: string[] = [];
    for (const { word } of this.tokens(text)) {
      const term = this.indexTerm(word);
      if (term !== undefined) out.push(term);
    }
    return out;
  }

  indexTerm(word: string): string | undefined {
    // English leaves out its short list of stop words by stem ("is", "was" → "be"), the others by word.
    const stop = this.spec.indexStopsStems ? this.stemOf(word) : word;
    return this.indexStopWords.has(stop) ? undefined : this.term(word);
  }

  /**
   * Terms of the words that are not stop words (nor, for matching sentences, single Latin letters).
   * `compounds`: each compound's parts' terms after its own (`whole`) or instead of it. `forms`: a
   * word form as its base word's term.
   */
  private termsWithout(
    text: string,
    stop: ReadonlySet<string>,
    dropLetters: boolean,
    compounds?: { split: CompoundSplitter; whole: boolean },
    forms = false,
  ): string[] {
    const out: string[] = [];
    const base = forms ? this.spec.baseForm : undefined;
    for (const { word } of this.tokens(text)) {
      if (stop.has(word)) continue;
      if (dropLetters && word.length < 2 && /^[a-z]$/.test(word)) continue;
      if (dropLetters && this.spec.grammarWords?.test(word)) continue;
      const parts = compounds?.split(word);
      if (!parts || compounds?.whole) out.push(this.term(base?.(word) ?? word));
      if (parts) for (const part of parts) out.push(this.term(part));
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
