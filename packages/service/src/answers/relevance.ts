import type { SearchHit } from '../domain/types.js';
import type { Question } from '../search/question.js';
import { type Language, languageFor } from '../text/language.js';
import type { Unit } from './units.js';

/**
 * Whether the passages answer the question at all, judged from the question's distinctive words:
 * those rare in the workspace say what the question is about. Word overlap alone quotes whatever
 * shares "days" and "get" with "How many vacation days do employees get?"; a question whose rare
 * words the workspace never uses, or whose best quote holds few of them, is declined instead.
 *
 * Two signals, each a share of the question's terms weighted by their rarity in the workspace
 * (inverse document frequency over its passages, a term the workspace lacks weighing most):
 *
 * - **presence**: the share of that weight the workspace holds anywhere. A question about vacations
 *   asked of software manuals lacks its heaviest words.
 * - **coverage**: the share the best quote (and the passage it comes from) holds. A question whose
 *   words are all in the workspace, but never together, is not answered by any one passage.
 *
 * The thresholds are fitted on the tune questions of every language and the off-topic set, never on
 * their holdout questions (docs/decisions/0014-languages.md).
 */

/** How many rows of the workspace hold each of the question's terms, by language, and its rows. */
export interface TermStats {
  rows: number;
  /** `language:term` → rows holding it (capped at TERM_COUNT_CAP). */
  counts: Map<string, number>;
}

/** Counting a term's rows stops here: a term in more rows than this is common, whatever the count. */
export const TERM_COUNT_CAP = 500;

const key = (language: Language, term: string) => `${language.code}:${term}`;

/**
 * The terms of the question in each language it is compared in (by `language:term`), to be counted:
 * a follow-up's with those it borrowed, which the decision's second reading of it weighs.
 */
export function questionTermsIn(question: Question, languages: Language[]): Map<string, string> {
  const wanted = new Map<string, string>();
  for (const language of languages)
    for (const term of (question.withSubject ?? question).terms(language))
      wanted.set(key(language, term), term);
  return wanted;
}

/** The question's terms (`questionTermsIn`) with the workspace's rows and its rows holding each term. */
export function termStatsOf(wanted: Map<string, string>, rows: number, held: Map<string, number>): TermStats {
  const byKey = new Map<string, number>();
  for (const [k, term] of wanted) byKey.set(k, held.get(term) ?? 0);
  return { rows, counts: byKey };
}

/**
 * Counts from the retrieved passages alone, for an answer asked without the workspace's statistics:
 * the passages stand in for the workspace (a term they lack counts as missing).
 */
export function statsOfPassages(
  question: Question,
  passages: { text: string; language: Language }[],
): TermStats {
  const counts = new Map<string, number>();
  const languages = [...new Map(passages.map((p) => [p.language.code, p.language])).values()];
  for (const language of languages) {
    const terms = question.distinctTerms(language);
    const held = passages
      .filter((p) => p.language.code === language.code)
      .map((p) => new Set(language.contentTerms(p.text)));
    for (const t of terms) counts.set(key(language, t), held.filter((h) => h.has(t)).length);
  }
  return { rows: passages.length, counts };
}

/** Whether the workspace holds `word` in any language its counts were taken in. */
export function workspaceHolds(stats: TermStats, word: string): boolean {
  for (const [k, n] of stats.counts) {
    if (n === 0) continue;
    const at = k.indexOf(':');
    if (k.slice(at + 1) === languageFor(k.slice(0, at)).term(word)) return true;
  }
  return false;
}

export interface RelevanceSignals {
  /** Share of the question's rarity weight that the workspace holds anywhere. */
  presence: number;
  /** Share that the best quote holds. */
  coverage: number;
  /** Share that the passage of the best quote holds. */
  passageCoverage: number;
  /** Share the best quote holds with terms weighted by their rarity among the retrieved sentences. */
  localCoverage?: number | undefined;
  /** Share of the question's adjacent term pairs that stand within a few words of each other in the best quote. */
  quotePairs?: number | undefined;
  /** The same in the best quote's passage. */
  passagePairs?: number | undefined;
  /** The best quote's passage's search score against the mean of the other passages'. */
  scoreLead?: number | undefined;
  /** Share of the question's two rarest terms that the workspace holds which the best passage holds. */
  rarestInPassage?: number | undefined;
  /** The same for the best quote. */
  rarestInQuote?: number | undefined;
  /** The question's distinct content terms. */
  terms?: number | undefined;
  /** Share of the rarity weight that the first search hit holds (extractive.ts: FIRST_HIT_HOLDS). */
  firstPassageCoverage?: number | undefined;
  /**
   * How usual the question's words are in the workspace: the mean of log(1 + rows holding a term) over
   * log(1 + rows of the workspace), both capped. A question about the workspace's subject uses its
   * everyday words; one about another subject, words it holds rarely or never.
   */
  familiarity?: number | undefined;
}

/**
 * Share of the question's adjacent content-term pairs (of different terms) whose terms stand within
 * `window` content words of each other in `text`: "keyboard layout" asked, "keyboard layout" or
 * "layout of the keyboard" written, not "keyboard" in one sentence and "layout" in another.
 */
export function pairShare(question: Question, text: string, language: Language, window = 3): number {
  const q = question.terms(language);
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < q.length; i++) if (q[i] !== q[i + 1]) pairs.push([q[i]!, q[i + 1]!]);
  if (pairs.length === 0) return 0;
  const at = new Map<string, number[]>();
  language.contentTerms(text).forEach((t, i) => {
    const list = at.get(t);
    if (list) list.push(i);
    else at.set(t, [i]);
  });
  const near = pairs.filter(([a, b]) => {
    const pa = at.get(a);
    const pb = at.get(b);
    return !!pa && !!pb && pa.some((x) => pb.some((y) => Math.abs(x - y) <= window));
  });
  return near.length / pairs.length;
}

/** The weight of a term: its inverse document frequency in the workspace (a missing term weighs most). */
function rarity(stats: TermStats, language: Language, term: string): number {
  const n = stats.counts.get(key(language, term)) ?? 0;
  return Math.log(1 + stats.rows / (n + 0.5));
}

/**
 * The signals for a question whose best quote, in `language`, holds `quoteTerms` and whose passage
 * holds `passageTerms`.
 */
export function relevanceSignals(
  question: Question,
  language: Language,
  quoteTerms: ReadonlySet<string>,
  passageTerms: ReadonlySet<string>,
  stats: TermStats,
): RelevanceSignals {
  const terms = question.distinctTerms(language);
  if (terms.length === 0 || stats.rows === 0) return { presence: 0, coverage: 0, passageCoverage: 0 };
  let total = 0;
  let present = 0;
  let quoted = 0;
  let inPassage = 0;
  for (const t of terms) {
    const w = rarity(stats, language, t);
    total += w;
    if ((stats.counts.get(key(language, t)) ?? 0) > 0) present += w;
    if (quoteTerms.has(t)) quoted += w;
    if (passageTerms.has(t)) inPassage += w;
  }
  // The rarest terms the workspace holds say what the question is about, among what the workspace knows.
  const held = terms
    .filter((t) => (stats.counts.get(key(language, t)) ?? 0) > 0)
    .sort((a, b) => rarity(stats, language, b) - rarity(stats, language, a))
    .slice(0, 2);
  const share = (set: ReadonlySet<string>) =>
    held.length ? held.filter((t) => set.has(t)).length / held.length : 0;
  return {
    presence: present / total,
    coverage: quoted / total,
    passageCoverage: inPassage / total,
    rarestInPassage: share(passageTerms),
    rarestInQuote: share(quoteTerms),
    terms: terms.length,
    familiarity:
      terms.reduce((a, t) => a + Math.log1p(stats.counts.get(key(language, t)) ?? 0), 0) /
      terms.length /
      Math.log1p(Math.min(stats.rows, TERM_COUNT_CAP)),
  };
}

/**
 * The features the decision weighs, in this order: the signals, with the score lead and the number of
 * terms on a log scale (a lead of 2 over 1 counts as much as 4 over 2).
 */
export const RELEVANCE_FEATURES = [
  'presence',
  'coverage',
  'passageCoverage',
  'localCoverage',
  'passagePairs',
  'logScoreLead',
  'logTerms',
  'familiarity',
] as const;

export function relevanceFeatures(s: RelevanceSignals): number[] {
  return [
    s.presence,
    s.coverage,
    s.passageCoverage,
    s.localCoverage ?? 0,
    s.passagePairs ?? 0,
    Math.log(Math.max(s.scoreLead ?? 1, 1e-3)),
    Math.log(Math.max(s.terms ?? 1, 1)),
    s.familiarity ?? 0,
  ];
}

/** A logistic model of "the passages answer it" over RELEVANCE_FEATURES, and the probability below which it declines. */
export interface RelevanceThresholds {
  intercept: number;
  weights: Record<(typeof RELEVANCE_FEATURES)[number], number>;
  minProbability: number;
}

/** The model's probability that the passages answer the question. */
export function answerProbability(signals: RelevanceSignals, model: RelevanceThresholds): number {
  const x = relevanceFeatures(signals);
  const score = RELEVANCE_FEATURES.reduce((a, f, i) => a + model.weights[f] * x[i]!, model.intercept);
  return 1 / (1 + Math.exp(-score));
}

/** Whether the signals say the passages answer the question. */
export function answersQuestion(signals: RelevanceSignals, model: RelevanceThresholds): boolean {
  return answerProbability(signals, model) >= model.minProbability;
}

/** A model that never declines: for measuring what the answerer would say without the decision. */
export const NEVER_DECLINE: RelevanceThresholds = {
  intercept: 0,
  weights: Object.fromEntries(RELEVANCE_FEATURES.map((f) => [f, 0])) as RelevanceThresholds['weights'],
  minProbability: 0,
};

/**
 * Fitted on the tune questions of every language and the off-topic set by
 * bench/languages-calibrate.ts (docs/decisions/0014-languages.md): the largest threshold at which
 * answers that hold the answer dropped by at most half a point. Refitted after the word lists and the
 * rule for Latin names in other scripts, it declined the same tune questions within one or two and one
 * more SQuAD question of 400, so these weights stayed.
 */
export const DEFAULT_RELEVANCE: RelevanceThresholds = {
  intercept: -7.356,
  weights: {
    presence: 3.311,
    coverage: 2.535,
    passageCoverage: 1.285,
    localCoverage: 4.345,
    passagePairs: 3.091,
    logScoreLead: 1.029,
    logTerms: 1.854,
    familiarity: -5.132,
  },
  minProbability: 0.25,
};

/** The terms of a passage's quotable sentences (and of the questions they sit under). */
const termsOf = (units: readonly Unit[]) => new Set(units.flatMap((u) => [...u.terms]));

/** The relevance signals of the answerer's best quote, and of the first hit (extractive.ts). */
export function signalsOfBestQuote(
  question: Question,
  hits: SearchHit[],
  best: { hitIndex: number; terms: Set<string>; coverage: number; text: string },
  unitsByHit: readonly Unit[][],
  stats: TermStats,
): RelevanceSignals {
  const passageTerms = termsOf(unitsByHit[best.hitIndex]!);
  const language = question.readingOf(hits[best.hitIndex]!.language);
  const others = hits.filter((_, i) => i !== best.hitIndex);
  const meanOther = others.reduce((a, h) => a + h.score, 0) / Math.max(1, others.length);
  const firstLanguage = question.readingOf(hits[0]!.language);
  // The hit as searched: its headings too ("## Refund policy" over the paragraph that gives it).
  const firstTerms = new Set(firstLanguage.contentTerms(hits[0]!.text));
  const first = relevanceSignals(question, firstLanguage, firstTerms, firstTerms, stats);
  return {
    ...relevanceSignals(question, language, best.terms, passageTerms, stats),
    firstPassageCoverage: first.passageCoverage,
    localCoverage: best.coverage,
    quotePairs: pairShare(question, best.text, language),
    passagePairs: pairShare(question, hits[best.hitIndex]!.text, language),
    scoreLead: meanOther > 0 ? hits[best.hitIndex]!.score / meanOther : 1,
  };
}
