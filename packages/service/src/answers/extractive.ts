import type { Citation, SearchHit } from '../domain/types.js';
import type { Question } from '../search/question.js';
import { ENGLISH, type Language } from '../text/language.js';
import { asksAboutSomethingAbsent, namesSomethingAbsent } from './absent.js';
import { type AnswerType, expectedAnswer, satisfies } from './answer-types.js';
import { aboutFollowUp, borrowedShare } from './follow-ups.js';
import { neutraliseMarkers } from './markers.js';
import { type CoverageOf, pairCoverage } from './pair-coverage.js';
import { markQuotingUnits, markTerm, quotedMarks } from './quoted.js';
import {
  answersQuestion,
  DEFAULT_RELEVANCE,
  type RelevanceSignals,
  type RelevanceThresholds,
  signalsOfBestQuote,
  statsOfPassages,
  type TermStats,
  workspaceHolds,
} from './relevance.js';
import { documentFrequency, rowScore } from './rows.js';
import { type Unit, unitsOf } from './units.js';

/** The English decline; a question in another language is declined in its own (text/questions.ts). */
export const NOT_FOUND_ANSWER = ENGLISH.questions.decline;

/** How an answer was made: quoted from the passages, written by a chat model, or declined. */
export type AnswerKind = 'extractive' | 'model' | 'declined';

export interface AnswerCitation extends Citation {
  /** The number used in the answer's `[n]` markers. */
  n: number;
  /** The cited words: the sentences of the passage that the answer uses. */
  text: string;
}

export interface Answer {
  answer: string;
  citations: AnswerCitation[];
  kind: AnswerKind;
  /** What the decision to answer was taken on (extractive answers with workspace statistics). */
  signals?: RelevanceSignals | undefined;
}

/** The answer that says the workspace does not hold one, in the question's language. */
export function declined(language: Language = ENGLISH): Answer {
  return { answer: language.questions.decline, citations: [], kind: 'declined' };
}

export interface ExtractiveOptions {
  /** Quotes in an answer, each from a different passage: the best one and its companions. */
  maxQuotes: number;
  /** A companion quote must cover at least this share of what the best one covers. */
  companionCoverage: number;
  /** Consecutive sentences a quote may span, and the length they stay under. */
  maxQuoteSentences: number;
  maxQuoteChars: number;
  /** Cost of each sentence a quote has beyond its first. */
  extraSentenceCost: number;
  /** Sentences after the best quote searched for the value or identifier it lacks. */
  followSentences: number;
  /** Score for the relevance of the quote's passage (its search score against the best one's). */
  relevanceWeight: number;
  /** Score for the passage's rank (this over rank + 1). */
  rankWeight: number;
  /** Score for holding the kind of answer the question asks for (a value, a command, a path). */
  typeWeight: number;
  /** A follow-up's: score for holding the words it borrowed (their share), a tie-break between quotes. */
  contextWeight: number;
  /** A table row's scores (rows.ts): for naming the column asked about, and per cell given its value. */
  rowWeight: number;
  boundCellWeight: number;
}

export const DEFAULT_EXTRACTIVE: ExtractiveOptions = {
  maxQuotes: 3,
  companionCoverage: 0.5,
  maxQuoteSentences: 2,
  maxQuoteChars: 500,
  extraSentenceCost: 0.02,
  followSentences: 3,
  relevanceWeight: 0.15,
  rankWeight: 0.02,
  typeWeight: 0.15,
  contextWeight: 0.05,
  rowWeight: 0.15,
  boundCellWeight: 0.1,
};

/** One sentence, or a sentence and the one after it, from one passage. */
export interface Quote {
  hitIndex: number;
  units: Unit[];
  text: string;
  terms: Set<string>;
  coverage: number;
  typed: boolean;
  /** Shares of a follow-up's borrowed terms it holds and its passage holds (follow-ups.ts). */
  context: number;
  passageContext: number;
  score: number;
}

const union = (a: Set<string>, b: Set<string>) => new Set([...a, ...b]);

/** The end of a sentence: its full stop, question or exclamation mark, closing quotes or brackets aside. */
const ENDS_SENTENCE = /[.!?。！？…][\s"'”’」』）)\]]*$/;

/**
 * The best quote continued with the sentences around it that complete it: the one before when it
 * refers back to it, or when it answers a why-question (the reason precedes what it restates); the
 * one after when it leads up to it (a colon, or running into a code block without ending) or gives a
 * why-question's reason pointing back; and the next ones up to the first that holds the value or the
 * identifier the question asks for when the quote lacks it.
 */
function extend(
  q: Quote,
  units: Unit[],
  type: AnswerType,
  options: ExtractiveOptions,
  language: Language,
  asksWhy = false,
  related: (u: Unit) => boolean = () => true,
): Quote {
  let first = units.indexOf(q.units[0]!);
  let last = units.indexOf(q.units[q.units.length - 1]!);
  const parts = [...q.units];
  const text = () => parts.map((u) => u.text).join(' ');
  // "It is especially used for…": the sentence before says what "it" is.
  if (language.questions.refersBack.test(parts[0]!.text) && first > 0) parts.unshift(units[--first]!);
  // "Why are GIF tools free now?": the sentence that matches a why-question restates what it asks
  // about; its reason is written next to it, often just before ("The LZW patent has expired. GIF
  // utilities … are now freely available"). A table row or a command before it is no reason.
  else if (asksWhy && parts.length === 1 && first > 0 && !units[first - 1]!.header && !units[first - 1]!.code)
    parts.unshift(units[--first]!);
  if (/[:：]$/.test(text()) && units[last + 1]) parts.push(units[++last]!);
  // "要显示默认目标，请执行" and the command under it: a sentence that runs into a code block without
  // ending is the block's lead, as one ending with a colon is.
  else if (units[last + 1]?.code && !ENDS_SENTENCE.test(text())) parts.push(units[++last]!);
  // "Why not back up /proc?": the sentence that names the subject is followed by its reason, which
  // points back at it ("不要备份 /proc…。它们是庞大且无用的数据。").
  else if (asksWhy && units[last + 1] && language.questions.refersBack.test(units[last + 1]!.text))
    parts.push(units[++last]!);
  // The sentences after a lead: the first one that holds the value or the thing to type, if near. A
  // table row is whole: the next row is another thing, not the rest of its answer.
  if (type !== 'none' && parts[parts.length - 1]!.header === undefined) {
    const more: Unit[] = [];
    for (let k = last + 1; k < units.length && more.length < options.followSentences; k++) {
      if (!related(units[k]!)) break; // a follow-up's quote stays on its subject (follow-ups.ts)
      more.push(units[k]!);
      if (
        satisfies(units[k]!.text, type, language) &&
        !satisfies(parts[parts.length - 1]!.text, type, language)
      ) {
        parts.push(...more);
        break;
      }
      if (satisfies(units[k]!.text, type, language) && type === 'identifier' && more.length === 1) {
        // How-to questions: the step after the explanation is what to do.
        parts.push(...more);
        break;
      }
    }
  }
  if (parts.length === q.units.length) return q;
  const terms = parts.reduce((acc, u) => union(acc, u.terms), new Set<string>());
  return { ...q, units: parts, text: text(), terms };
}

/**
 * What the answerer may consult beside the passages. The question itself carries its language (its
 * kind of answer and the decline are read in it) and its language's ordinary words: a question
 * naming something else is checked against the passages.
 */
export interface AnswerAids {
  /** How often the question's terms occur in the workspace, for the relevance decision (relevance.ts). */
  stats?: TermStats | undefined;
  /** The decision's thresholds; DEFAULT_RELEVANCE when not given. */
  relevance?: RelevanceThresholds | undefined;
  /** Ordinary words of the question that no passage of the workspace holds (absent.ts looks them up). */
  absentFromWorkspace?: ReadonlySet<string> | undefined;
}

/** The question's terms as each passage language reads them, and their weights among the passages' sentences. */
interface QuestionTerms {
  terms: readonly string[];
  weight: Map<string, number>;
  total: number;
  /** Japanese: coverage by the question's words rather than its character pairs (pair-coverage.ts). */
  byWords: CoverageOf | undefined;
}

/**
 * Every quote the passages offer for a question, best first, with what scored it. The question's
 * terms are read in each passage's language, so a quote is compared with the question word for word
 * in the language it is written in; the kind of answer wanted is read in the question's language.
 */
export function rankQuotes(
  question: Question,
  hits: SearchHit[],
  options: ExtractiveOptions = DEFAULT_EXTRACTIVE,
): { type: AnswerType; quotes: Quote[]; unitsByHit: Unit[][] } {
  const type = expectedAnswer(question.text, question.reading);
  const languages = hits.map((h) => question.readingOf(h.language));
  const unitsByHit = hits.map((h, i) => unitsOf(h.text, languages[i]!));
  const byLanguage = new Map<string, QuestionTerms>();
  for (const lang of languages) {
    if (byLanguage.has(lang.code)) continue;
    let terms = question.distinctTerms(lang);
    if (terms.length === 0) terms = [...new Set(lang.terms(question.text))];
    const units = unitsByHit.filter((_, k) => languages[k]!.code === lang.code).flat();
    const marks = quotedMarks(question.text, lang);
    markQuotingUnits(units, marks);
    if (marks.length > 0) terms = [...terms, ...marks.map(markTerm)];
    const weight = new Map<string, number>();
    for (const t of terms) {
      const df = documentFrequency(t, units);
      weight.set(t, Math.log(1 + units.length / (df || 0.5)));
    }
    const byWords = pairCoverage(question.text, lang, terms, units);
    byLanguage.set(lang.code, {
      terms,
      weight,
      total: [...weight.values()].reduce((x, y) => x + y, 0),
      byWords,
    });
  }
  if (unitsByHit.every((u) => u.length === 0) || [...byLanguage.values()].every((q) => q.terms.length === 0))
    return { type, quotes: [], unitsByHit };
  const topScore = Math.max(...hits.map((h) => h.score), 0);

  const quotes: Quote[] = [];
  unitsByHit.forEach((units, hitIndex) => {
    const lang = languages[hitIndex]!;
    const q = byLanguage.get(lang.code)!;
    if (q.terms.length === 0) return;
    const about = aboutFollowUp(question, lang);
    const shareOf = borrowedShare(question, lang);
    const passageContext = shareOf(units.reduce((acc, u) => union(acc, u.terms), new Set<string>()));
    const coverageOf = (terms: Set<string>) =>
      q.byWords
        ? q.byWords(terms)
        : q.terms.filter((t) => terms.has(t)).reduce((a, t) => a + (q.weight.get(t) ?? 0), 0) / q.total;
    const relevance = topScore > 0 ? Math.max(0, hits[hitIndex]!.score) / topScore : 0;
    const add = (parts: Unit[]) => {
      const text = parts.map((u) => u.text).join(' ');
      const terms = parts.reduce((acc, u) => union(acc, u.terms), new Set<string>());
      const coverage = coverageOf(terms);
      const typed = type !== 'none' && satisfies(text, type, lang);
      const lengthPenalty = text.length > 600 ? 0.85 : 1;
      const context = shareOf(terms);
      const score =
        (parts.length === 1 ? rowScore(parts[0]!, question.text, q.terms, options) : 0) +
        coverage * lengthPenalty +
        options.contextWeight * context +
        (typed ? options.typeWeight : 0) +
        options.relevanceWeight * relevance +
        options.rankWeight / (hitIndex + 1) -
        options.extraSentenceCost * (parts.length - 1);
      quotes.push({ hitIndex, units: parts, text, terms, coverage, typed, context, passageContext, score });
    };
    units.forEach((u, i) => {
      // A sentence, then longer quotes while each further sentence adds something the quote lacks.
      const parts = [u];
      add([u]);
      let length = u.text.length;
      for (let k = i + 1; k < units.length && parts.length < options.maxQuoteSentences; k++) {
        const next = units[k]!;
        length += next.text.length + 1;
        if (length > options.maxQuoteChars) break;
        const sofar = parts.reduce((acc, x) => union(acc, x.terms), new Set<string>());
        const addsTerms = q.terms.some((t) => next.terms.has(t) && !sofar.has(t));
        const sofarText = parts.map((x) => x.text).join(' ');
        const addsValue =
          type !== 'none' &&
          about(next) &&
          !satisfies(sofarText, type, lang) &&
          satisfies(next.text, type, lang);
        parts.push(next);
        if (addsTerms || addsValue) add([...parts]);
      }
    });
  });
  return { type, quotes: quotes.sort((a, b) => b.score - a.score), unitsByHit };
}

/**
 * The share of the question's rarity weight a first search hit must hold for the question not to be
 * declined (issue 41: "a question whose first search hit holds most of its rare words must not be
 * declined"). Three quarters: on the tune questions no unanswerable or off-topic question the model
 * declines has a first hit holding more than 0.7 of it (docs/decisions/0027-false-declines.md).
 */
export const FIRST_HIT_HOLDS = 0.75;

/**
 * Builds an answer only from sentences of the retrieved passages: it never writes a word of its own
 * beyond the markers. Quotes are single sentences, or a sentence and the one after it when the second
 * adds what the first lacks (more of the question's words, or the value the question asks for). They
 * are scored by how much of the question's vocabulary they cover (rare terms count more), whether they
 * hold the kind of answer the question asks for (answer-types.ts), and the rank of their passage. The
 * best quote answers; the best quotes of other passages that cover nearly as much join it.
 */
export function composeExtractiveAnswer(
  question: Question,
  hits: SearchHit[],
  options: ExtractiveOptions = DEFAULT_EXTRACTIVE,
  aids: AnswerAids = {},
): Answer {
  const questionLanguage = question.reading;
  const { type, quotes, unitsByHit } = rankQuotes(question, hits, options);
  if (quotes.length === 0) return declined(questionLanguage);
  const stats =
    aids.stats ??
    statsOfPassages(
      question.withSubject ?? question,
      hits.map((h) => ({ text: h.text, language: question.readingOf(h.language) })),
    );
  const signals = signalsOfBestQuote(question, hits, quotes[0]!, unitsByHit, stats);
  const decline = () => ({ ...declined(questionLanguage), signals });
  // WordNet holds every English lemma; the other languages' word lists have gaps, so a word their
  // workspace holds anywhere is no name there.
  const held = questionLanguage.code === 'en' ? undefined : (w: string) => workspaceHolds(stats, w);
  if (
    question.lexicon &&
    asksAboutSomethingAbsent(
      question.text,
      hits,
      question.lexicon,
      aids.absentFromWorkspace,
      questionLanguage,
      held,
    )
  )
    return decline();
  if (namesSomethingAbsent(question.text, hits, (w) => workspaceHolds(stats, w), questionLanguage))
    return decline();
  const model = aids.relevance ?? DEFAULT_RELEVANCE;
  // The model weighs the best quote. A follow-up's own words are too few to judge it by ("How do I
  // enable it?"): read with the words it borrowed, as if it named its subject, it is answered when the
  // passages answer that. And a first hit that holds most of what the question asks about answers it
  // even where the model doubts (one word asked, no pairs to stand together, the word on every page
  // of the workspace); its own best quote is the answer then.
  const subject = question.withSubject;
  const asSubject = () => signalsOfBestQuote(subject!, hits, quotes[0]!, unitsByHit, stats);
  const modelAnswers =
    answersQuestion(signals, model) || (subject !== undefined && answersQuestion(asSubject(), model));
  const firstHolds = (signals.firstPassageCoverage ?? 0) >= FIRST_HIT_HOLDS;
  if (!modelAnswers && !firstHolds) return decline();
  const best = modelAnswers ? quotes[0]! : (quotes.find((q) => q.hitIndex === 0) ?? quotes[0]!);

  const bestLanguage = question.readingOf(hits[best.hitIndex]!.language);
  const chosen: Quote[] = [
    extend(
      best,
      unitsByHit[best.hitIndex]!,
      type,
      options,
      bestLanguage,
      questionLanguage.questions.why.test(question.text),
      aboutFollowUp(question, bestLanguage),
    ),
  ];
  for (const q of quotes) {
    if (chosen.length >= options.maxQuotes) break;
    if (chosen.some((c) => c.hitIndex === q.hitIndex || c.text === q.text)) continue;
    if (q.coverage < best.coverage * options.companionCoverage) continue;
    if (best.typed && !q.typed) continue;
    // A companion whose passage names none of what a follow-up is about, when the best one does, is off it.
    if (best.passageContext > 0 && q.passageContext === 0) continue;
    chosen.push(q);
  }
  chosen.sort((a, b) => a.hitIndex - b.hitIndex);

  const citations: AnswerCitation[] = [];
  const parts: string[] = [];
  for (const q of chosen) {
    const hit = hits[q.hitIndex]!;
    const citation: AnswerCitation = {
      ...hit.citation,
      n: citations.length + 1,
      text: q.text,
      charStart: hit.citation.charStart + q.units[0]!.start,
      charEnd: hit.citation.charStart + q.units[q.units.length - 1]!.end,
    };
    citations.push(citation);
    parts.push(`${neutraliseMarkers(q.text)} [${citation.n}]`);
  }
  return { answer: parts.join(' '), citations, kind: 'extractive', signals };
}
