import type { ChatMessage, Dictionaries, LanguageDetector, Lexicon, Lexicons } from '../domain/ports.js';
import { type CompoundSplitter, questionSplitter, splitterFor, withCompounds } from '../text/compounds.js';
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
  /**
   * Splits its compounds, in its own language, where that language's word list allows; its verbs and
   * adjectives stay whole (text/compounds.ts `questionSplitter`).
   */
  readonly split: CompoundSplitter | undefined;
  /** Its language's ordinary words, when the caller (the answerer) asked for them. */
  readonly lexicon: Lexicon | undefined;
  /** What it borrowed from the conversation's earlier user turns: empty when it stands alone. */
  readonly borrowed: string;
  /** The text retrieval reads: the question, then what it borrowed. */
  readonly retrievalText: string;
  private readonly workspaceLanguages: readonly string[];
  /** Splits the compounds of its own language's passages (`split` is the question's). */
  private readonly passageSplit: CompoundSplitter | undefined;
  private named: Question | undefined;
  /**
   * The question in each workspace language it was translated into: for each of its content words,
   * the words it may be in that language (a dictionary's senses, or the word itself).
   */
  readonly translations: ReadonlyMap<string, Translation>;
  private readonly memo = new Map<Language, Map<string, unknown>>();
  private readonly analysis: ConstructorParameters<typeof Question>[1];

  constructor(
    readonly text: string,
    analysis: {
      language?: Language | undefined;
      /** The languages of the workspace's documents (English when it has none recorded). */
      workspaceLanguages?: readonly string[] | undefined;
      /** Splits the compounds of its language's passages (and its own, unless `questionSplit` is given). */
      split?: CompoundSplitter | undefined;
      /** Splits the question's own compounds. */
      questionSplit?: CompoundSplitter | undefined;
      lexicon?: Lexicon | undefined;
      /** Text borrowed from earlier turns (search/follow-up.ts `borrowedText`). */
      borrowed?: string | undefined;
      translations?: ReadonlyMap<string, Translation> | undefined;
    } = {},
  ) {
    this.analysis = analysis;
    this.borrowed = analysis.borrowed?.trim() ?? '';
    this.retrievalText = this.borrowed ? `${text}\n${this.borrowed}` : text;
    this.language = analysis.language ?? ENGLISH;
    this.translations = analysis.translations ?? new Map();
    this.passageSplit = analysis.split;
    this.split = analysis.questionSplit ?? analysis.split;
    this.lexicon = analysis.lexicon;
    this.reading = analysis.split ? withCompounds(this.language, analysis.split, this.split) : this.language;
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
      split: this.passageSplit,
      questionSplit: this.split,
      lexicon: this.lexicon,
      translations: this.translations,
    });
    return this.named;
  }

  /** The language a passage written in `code` is compared in: the question's reading for its own. */
  readingOf(code: string | null | undefined): Language {
    const language = languageFor(code ?? 'en');
    return language.code === this.language.code ? this.reading : language;
  }

  /**
   * What is read in `language`: the question itself, or in a language it is not asked in and was
   * translated into, its translation (passages of that language are searched and quoted by it).
   */
  textIn(language: Language): string {
    const translation =
      language.code === this.language.code ? undefined : this.translations.get(language.code);
    return translation ? translation.flat().join(' ') : this.text;
  }

  /**
   * What retrieval reads in `language`: the question there (itself, or its translation), then what it
   * borrowed from earlier turns (as written: a follow-up's borrowed words are not translated).
   */
  private retrievalTextIn(language: Language): string {
    const own = this.textIn(language);
    return this.borrowed ? `${own}\n${this.borrowed}` : own;
  }

  /**
   * The same question with each translated word read in the sense the retrieved passages use: the
   * senses any of them holds (every sense was searched for; "Befehl" asked for order, precept and
   * command), else its first, which none holds and so counts as a word the workspace does not answer.
   * What the answerer weighs a translated question by, so that the senses it was searched with do
   * not all count as words it asks about.
   */
  inSensesOf(passages: readonly { text: string; language: Language }[]): Question {
    if (this.translations.size === 0) return this;
    const narrowed = new Map<string, Translation>();
    for (const [code, words] of this.translations) {
      const held = new Set(
        passages.filter((p) => p.language.code === code).flatMap((p) => p.language.contentTerms(p.text)),
      );
      const language = languageFor(code);
      const holds = (sense: string) => language.contentTerms(sense).every((t) => held.has(t));
      narrowed.set(
        code,
        words.map((senses) => {
          const used = senses.slice(0, SENSES_WEIGHED).filter(holds);
          return used.length > 0 ? used : senses.slice(0, 1);
        }),
      );
    }
    return new Question(this.text, { ...this.analysis, translations: narrowed });
  }

  /** Its content terms as `language` reads them, without the words that only ask (the answerer's). */
  terms(language: Language = this.reading): readonly string[] {
    return this.kept(language, 'terms', () => language.questionTerms(this.textIn(language)));
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

  /**
   * The terms the full-text index is asked for in `language`: the question's, then the borrowed
   * content words it does not have itself, each once. The earlier turn's stop words ("Is there", "À"),
   * and the words both turns use, counted again, would outweigh what it was about ("debsums").
   */
  indexTerms(language: Language): readonly string[] {
    return this.kept(language, 'index', () => {
      const own = language.indexTerms(this.textIn(language));
      if (!this.borrowed) return own;
      const have = new Set(own);
      return [...own, ...new Set(language.queryTerms(this.borrowed).filter((t) => !have.has(t)))];
    });
  }

  /** The terms a snippet marks in a passage of `language`. */
  queryTerms(language: Language): ReadonlySet<string> {
    return this.kept(language, 'query', () => new Set(language.queryTerms(this.textIn(language))));
  }

  /** Its word codes in `language` (with the borrowed words'), which the rescoring compares with a passage's. */
  coded(language: Language): CodedQuery {
    return this.kept(language, 'coded', () => codedQuery(this.retrievalTextIn(language), language));
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

/**
 * How many of a translated word's senses, the dictionary's first first, the answerer takes as what
 * the word may mean: a passage that uses only a word's fifth sense ("Befehl": order, ordinance,
 * precept, fiat, mandamus, command) is weak evidence that it answers, and everyday questions asked
 * of technical workspaces were answered on such senses (decision 0028).
 */
const SENSES_WEIGHED = 2;

/** A question's content words in another language: each word's senses there, its first sense first. */
export type Translation = readonly (readonly string[])[];

export interface QuestionDeps {
  /** Tells the question's language; without one, questions are read in the workspace's languages. */
  languages?: LanguageDetector | undefined;
  /** Each language's words: the word list a question's compounds are split by (German). */
  lexicons?: Lexicons | undefined;
  /** Bilingual dictionaries: a question in a language the workspace is not written in is translated. */
  dictionaries?: Dictionaries | undefined;
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
  const split = splitterFor(language, lexicon);
  return new Question(text, {
    language,
    workspaceLanguages: workspace.languages,
    split,
    questionSplit: split && lexicon ? questionSplitter(split, lexicon) : undefined,
    lexicon: withLexicon ? lexicon : undefined,
    borrowed: borrowedText(text, language, conversation.history),
    translations: await translationsOf(deps.dictionaries, text, language, split, workspace.languages),
  });
}

/**
 * Dictionary-based query translation: a question asked in a language none of the workspace's
 * documents is written in (a German reader of English manuals) is also read, in each of those
 * languages a dictionary leads to, as its content words' translations — every sense the dictionary
 * gives, since the full-text query ranks the passages that hold the right ones, and a word the
 * dictionary lacks as itself (names and commands are written alike: "ifconfig", "dpkg"). A compound
 * the dictionary lacks is translated by its parts. A workspace in the question's language, or one
 * with no languages recorded, is searched in the question's words alone.
 */
async function translationsOf(
  dictionaries: Dictionaries | undefined,
  text: string,
  language: Language,
  split: CompoundSplitter | undefined,
  workspaceLanguages: readonly string[],
): Promise<Map<string, Translation>> {
  const out = new Map<string, Translation>();
  if (!dictionaries || workspaceLanguages.length === 0 || workspaceLanguages.includes(language.code))
    return out;
  const keyOf = (word: string) => language.term(word.toLowerCase());
  const asked = new Set(language.questionTerms(text));
  for (const code of workspaceLanguages) {
    const dictionary = await dictionaries.forPair(language.code, code, keyOf);
    if (!dictionary) continue;
    const words: string[][] = [];
    for (const { word } of language.tokens(text)) {
      // Its content words: not the stop words nor the words that only ask ("wie viele").
      if (!asked.has(language.term(word))) continue;
      const own = dictionary.translations(keyOf(word));
      if (own.length > 0) {
        words.push([...own]);
        continue;
      }
      // A compound's parts are words of their own ("Urlaubs|tage": vacation, days).
      const parts = (split?.(word) ?? []).map((p) => dictionary.translations(keyOf(p)));
      if (parts.length > 0 && parts.every((senses) => senses.length > 0))
        words.push(...parts.map((p) => [...p]));
      else words.push([word]);
    }
    out.set(code, words);
  }
  return out;
}
