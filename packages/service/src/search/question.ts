import type { LanguageDetector, Lexicon, Lexicons } from '../domain/ports.js';
import { type CompoundSplitter, splitterFor, withCompounds } from '../text/compounds.js';
import { questionLanguage } from '../text/detection.js';
import { ENGLISH, type Language, languageFor } from '../text/language.js';
import { compoundExpansions, expandQuery } from './expansion.js';
import { type CodedQuery, codedQuery } from './word-codes.js';

/**
 * A question (or a search's query) analysed once, where retrieval starts, and read by everything
 * after it: the index query, the rescoring, the snippets, the relevance decision and the extractive
 * answerer. Each of its readings' terms is made the first time one of them asks and kept for the
 * others, so no stage reads the question's words again, and all of them read them alike.
 */
export class Question {
  /**
   * The language the answerer compares the question and its own language's passages in: the
   * question's language reading compounds by `split` (German), else that language.
   */
  readonly reading: Language;
  /** The language it is asked in (detected, or the workspace's). */
  readonly language: Language;
  /** Each language the question is searched in: its own first, then each other of the workspace. */
  readonly readings: readonly Language[];
  /** Splits its compounds, in its own language, where that language's word list allows. */
  readonly split: CompoundSplitter | undefined;
  /** Its language's ordinary words, when the caller (the answerer) asked for them. */
  readonly lexicon: Lexicon | undefined;
  private readonly memo = new Map<Language, Map<string, unknown>>();

  constructor(
    readonly text: string,
    analysis: {
      language?: Language | undefined;
      /** The languages of the workspace's documents (English when it has none recorded). */
      workspaceLanguages?: readonly string[] | undefined;
      split?: CompoundSplitter | undefined;
      lexicon?: Lexicon | undefined;
    } = {},
  ) {
    this.language = analysis.language ?? ENGLISH;
    this.split = analysis.split;
    this.lexicon = analysis.lexicon;
    this.reading = this.split ? withCompounds(this.language, this.split) : this.language;
    this.readings = readingsOf(this.language, analysis.workspaceLanguages ?? []);
  }

  /** The language a passage written in `code` is compared in: the question's reading for its own. */
  readingOf(code: string | null | undefined): Language {
    const language = languageFor(code ?? 'en');
    return language.code === this.language.code ? this.reading : language;
  }

  /** Its content terms as `language` reads them, without the words that only ask (the answerer's). */
  terms(language: Language = this.reading): readonly string[] {
    return this.kept(language, 'terms', () => language.questionTerms(this.text));
  }

  /** The same without repeats, in order. */
  distinctTerms(language: Language = this.reading): readonly string[] {
    return this.kept(language, 'distinct', () => [...new Set(this.terms(language))]);
  }

  /** The terms the full-text index is asked for in `language`. */
  indexTerms(language: Language): readonly string[] {
    return this.kept(language, 'index', () => language.indexTerms(this.text));
  }

  /** The terms a snippet marks in a passage of `language`. */
  queryTerms(language: Language): ReadonlySet<string> {
    return this.kept(language, 'query', () => new Set(language.queryTerms(this.text)));
  }

  /** Its word codes in `language`, which the rescoring compares with a passage's stored codes. */
  coded(language: Language): CodedQuery {
    return this.kept(language, 'coded', () => codedQuery(this.text, language));
  }

  /** Index terms a passage may use for what it says in other words (joined words, compounds' parts). */
  expansions(): readonly string[] {
    return this.kept(this.language, 'expansions', () => [
      ...expandQuery(this.text, this.language),
      ...compoundExpansions(this.text, this.language, this.split),
    ]);
  }

  private kept<T>(language: Language, what: string, make: () => T): T {
    let byWhat = this.memo.get(language);
    if (!byWhat) {
      byWhat = new Map();
      this.memo.set(language, byWhat);
    }
    if (!byWhat.has(what)) byWhat.set(what, make());
    return byWhat.get(what) as T;
  }
}

/**
 * The languages a query is read in: the question's own and every language the workspace's documents
 * were indexed in. Each reading gives the terms that language's documents were indexed with; one
 * full-text query over all of them ranks every passage by its own language's terms.
 */
function readingsOf(question: Language, workspaceLanguages: readonly string[]): Language[] {
  const out = new Map<string, Language>([[question.code, question]]);
  for (const code of workspaceLanguages) if (!out.has(code)) out.set(code, languageFor(code));
  // A workspace indexed before languages were recorded holds English rows.
  if (workspaceLanguages.length === 0) out.set('en', ENGLISH);
  return [...out.values()];
}

export interface QuestionDeps {
  /** Tells the question's language; without one, questions are read in the workspace's languages. */
  languages?: LanguageDetector | undefined;
  /** Each language's words: the word list a question's compounds are split by (German). */
  lexicons?: Lexicons | undefined;
}

/**
 * Analyses a question asked of a workspace: its language (told by the caller, else detected, else the
 * workspace's), its readings, and its compound splitter. `withLexicon`: also keep its language's word
 * list (the answerer reads it to tell names of things absent from the workspace).
 */
export async function analyseQuestion(
  deps: QuestionDeps,
  text: string,
  workspace: { language: string; languages: string[] },
  withLexicon = false,
): Promise<Question> {
  const language = await questionLanguage(text, workspace, deps.languages);
  const lexicon =
    withLexicon || language.splitsCompounds ? await deps.lexicons?.forLanguage(language.code) : undefined;
  return new Question(text, {
    language,
    workspaceLanguages: workspace.languages,
    split: splitterFor(language, lexicon),
    lexicon: withLexicon ? lexicon : undefined,
  });
}
