import type { ChatMessage, LanguageDetector, Lexicon, Lexicons } from '../domain/ports.js';
import { type CompoundSplitter, splitterFor, withCompounds } from '../text/compounds.js';
import { questionLanguage } from '../text/detection.js';
import { ENGLISH, type Language, languageFor } from '../text/language.js';
import { compoundExpansions, expandQuery } from './expansion.js';
import { borrowedText } from './follow-up.js';
import { type CodedQuery, codedQuery } from './word-codes.js';

/**
 * A question (or a search's query) analysed once, where retrieval starts, and read by everything
 * after it: the index query, the rescoring, the snippets, the relevance decision and the extractive
 * answerer. Each of its readings' terms is made the first time one of them asks and kept for the
 * others, so no stage reads the question's words again, and all of them read them alike.
 *
 * A follow-up ("How do I enable it?") also carries the words it borrowed from the conversation's
 * earlier user turns (search/follow-up.ts): retrieval reads them with its own (`indexTerms`, `coded`,
 * the vector query), so the passages are about what "it" is; the answerer's terms (`terms`) stay the
 * question's own, so it quotes what answers the new question, and reads the borrowed ones
 * (`borrowedTerms`) only to choose between sentences that answer it equally.
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
  /** What it borrowed from the conversation's earlier user turns: empty when it stands alone. */
  readonly borrowed: string;
  /** The text retrieval reads: the question, then what it borrowed. */
  readonly retrievalText: string;
  private readonly memo = new Map<Language, Map<string, unknown>>();
  private readonly workspaceLanguages: readonly string[];
  private named: Question | undefined;

  constructor(
    readonly text: string,
    analysis: {
      language?: Language | undefined;
      /** The languages of the workspace's documents (English when it has none recorded). */
      workspaceLanguages?: readonly string[] | undefined;
      split?: CompoundSplitter | undefined;
      lexicon?: Lexicon | undefined;
      /** Text borrowed from earlier turns (search/follow-up.ts `borrowedText`). */
      borrowed?: string | undefined;
    } = {},
  ) {
    this.borrowed = analysis.borrowed?.trim() ?? '';
    this.retrievalText = this.borrowed ? `${text}\n${this.borrowed}` : text;
    this.language = analysis.language ?? ENGLISH;
    this.split = analysis.split;
    this.lexicon = analysis.lexicon;
    this.reading = this.split ? withCompounds(this.language, this.split) : this.language;
    this.workspaceLanguages = analysis.workspaceLanguages ?? [];
    this.readings = readingsOf(this.language, this.workspaceLanguages);
  }

  /**
   * A follow-up read as one question with the words it borrowed, as if it named what it refers to
   * ("How do I enable it? What does the firewall block by default?"): the relevance decision's second
   * reading of it (answers/extractive.ts). Undefined for a question that stands alone.
   */
  get withSubject(): Question | undefined {
    if (!this.borrowed) return undefined;
    this.named ??= new Question(this.retrievalText, {
      language: this.language,
      workspaceLanguages: this.workspaceLanguages,
      split: this.split,
      lexicon: this.lexicon,
    });
    return this.named;
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

  /**
   * Terms of what it borrowed that are not its own, in order without repeats: words that only say
   * what it is about ("firewall" for "How do I enable it?").
   */
  borrowedTerms(language: Language = this.reading): readonly string[] {
    if (!this.borrowed) return [];
    return this.kept(language, 'borrowed', () => {
      const own = new Set(this.terms(language));
      return [...new Set(language.questionTerms(this.borrowed))].filter((t) => !own.has(t));
    });
  }

  /** The terms the full-text index is asked for in `language` (with the borrowed ones). */
  indexTerms(language: Language): readonly string[] {
    return this.kept(language, 'index', () => language.indexTerms(this.retrievalText));
  }

  /** The terms a snippet marks in a passage of `language`. */
  queryTerms(language: Language): ReadonlySet<string> {
    return this.kept(language, 'query', () => new Set(language.queryTerms(this.text)));
  }

  /** Its word codes in `language` (with the borrowed words'), which the rescoring compares with a passage's. */
  coded(language: Language): CodedQuery {
    return this.kept(language, 'coded', () => codedQuery(this.retrievalText, language));
  }

  /** Index terms a passage may use for what it says in other words (joined words, compounds' parts). */
  expansions(): readonly string[] {
    return this.kept(this.language, 'expansions', () => [
      ...expandQuery(this.retrievalText, this.language),
      ...compoundExpansions(this.retrievalText, this.language, this.split),
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
 * list (the answerer reads it to tell names of things absent from the workspace). `history`: the
 * conversation's earlier turns, oldest first, which a follow-up borrows words from (search/follow-up.ts).
 */
export async function analyseQuestion(
  deps: QuestionDeps,
  text: string,
  workspace: { language: string; languages: string[] },
  withLexicon = false,
  conversation: { history?: readonly ChatMessage[] | undefined } = {},
): Promise<Question> {
  const language = await questionLanguage(text, workspace, deps.languages);
  const lexicon =
    withLexicon || language.splitsCompounds ? await deps.lexicons?.forLanguage(language.code) : undefined;
  return new Question(text, {
    language,
    workspaceLanguages: workspace.languages,
    split: splitterFor(language, lexicon),
    lexicon: withLexicon ? lexicon : undefined,
    borrowed: borrowedText(text, language, conversation.history),
  });
}
