import { answerMatcher, containsPassage, hasAnswers as hasAnswersOf } from './answer-match.js';
import type { Expected, Question } from './questions.js';

/**
 * How an evaluation scores what search and chat gave for each question (issue 40, docs/evaluation.md):
 * checks per question, then each metric over the questions it applies to, with a 95 % bootstrap
 * interval. Pure: the runner asks, this counts.
 */

/** A passage search returned, in its order. */
export interface RetrievedPassage {
  documentId: string;
  filename: string;
  /** The page the passage starts on; null for formats without pages. */
  page: number | null;
  text: string;
  score: number;
}

export interface GivenAnswer {
  text: string;
  /** The answer said the workspace holds no answer. */
  declined: boolean;
  citations: {
    n: number;
    documentId: string;
    filename: string;
    page: number | null;
    text: string;
  }[];
}

/** What one question got. */
export interface QuestionOutcome {
  question: Question;
  retrieved: RetrievedPassage[];
  searchMs: number;
  /** Absent when the evaluation asked for passages only. */
  answer?: GivenAnswer | undefined;
  chatMs?: number | undefined;
}

/**
 * Which checks a question passed; null where a check does not apply to it (no `expected`, no
 * `answers`, no answer asked for). Rank checks are expectations over the order of passages with equal
 * scores (see `rankOdds`), so they may be fractions.
 */
export interface QuestionChecks {
  /** Expected rank of the first passage that is what the question expects (1 = first); null when none is. */
  firstHitRank: number | null;
  hitAt1: number | null;
  hitAt5: number | null;
  hitAt10: number | null;
  reciprocalRank: number | null;
  answerRecallAt5: number | null;
  ndcgAt10: number | null;
  /** Share of the expected items found among the first 100 passages. */
  recallAt100: number | null;
  chatContains: number | null;
  citedContains: number | null;
  /** The answer cites a passage that is what the question expects. */
  citedExpected: number | null;
  markersResolve: number | null;
  unanswerableDeclined: number | null;
  falseDecline: number | null;
}

function matches(passage: RetrievedPassage, expected: Expected): boolean {
  if ('passage' in expected) return containsPassage(passage.text, expected.passage);
  if (passage.documentId !== expected.document && passage.filename !== expected.document) return false;
  return expected.page === undefined || passage.page === expected.page;
}

/** n choose k, small n (a group of passages with one score). */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/**
 * The first relevant passage's rank, as odds over the orders search could have given passages of
 * equal score: a group of m equal passages at ranks a..a+m-1 holding g relevant ones has its first
 * relevant one at a+j with probability C(m-j-1, g-1) / C(m, g). Returns those ranks and odds, or
 * none when no passage is relevant. Without ties this is the one rank, with odds 1.
 */
export function rankOdds(
  relevant: readonly boolean[],
  scores: readonly number[],
): { rank: number; p: number }[] {
  let start = 0;
  while (start < relevant.length) {
    let end = start + 1;
    while (end < relevant.length && scores[end] === scores[start]) end++;
    const m = end - start;
    let g = 0;
    for (let i = start; i < end; i++) if (relevant[i]) g++;
    if (g > 0) {
      const total = choose(m, g);
      const odds: { rank: number; p: number }[] = [];
      for (let j = 0; j <= m - g; j++)
        odds.push({ rank: start + 1 + j, p: choose(m - j - 1, g - 1) / total });
      return odds;
    }
    start = end;
  }
  return [];
}

const expectation = (odds: { rank: number; p: number }[], f: (rank: number) => number) =>
  odds.reduce((sum, o) => sum + o.p * f(o.rank), 0);

/** nDCG@10 with each expected item a relevant unit, credited to the first passage that matches it. */
function ndcgAt10(retrieved: readonly RetrievedPassage[], expected: readonly Expected[]): number {
  const credited = new Set<number>();
  let dcg = 0;
  retrieved.slice(0, 10).forEach((passage, i) => {
    const item = expected.findIndex((e, k) => !credited.has(k) && matches(passage, e));
    if (item >= 0) {
      credited.add(item);
      dcg += 1 / Math.log2(i + 2);
    }
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(10, expected.length); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

/** Share of the expected items that one of the first `k` passages matches. */
function recallAt(k: number, retrieved: readonly RetrievedPassage[], expected: readonly Expected[]): number {
  const top = retrieved.slice(0, k);
  return expected.filter((e) => top.some((p) => matches(p, e))).length / expected.length;
}

const MARKER = /\[(\d+)\]/g;
const bit = (b: boolean) => (b ? 1 : 0);

export function checkQuestion(outcome: QuestionOutcome): QuestionChecks {
  const { question, retrieved, answer } = outcome;
  const expectsPassages = question.expected.length > 0;
  const hasAnswers = hasAnswersOf(question);
  const holdsAnswer = answerMatcher(question);
  const odds = expectsPassages
    ? rankOdds(
        retrieved.map((p) => question.expected.some((e) => matches(p, e))),
        retrieved.map((p) => p.score),
      )
    : [];
  const within = (k: number) => (expectsPassages ? expectation(odds, (r) => bit(r <= k)) : null);
  const answerable = !question.unanswerable && (hasAnswers || expectsPassages);
  const spoken = answer && !answer.declined ? answer : undefined;
  return {
    firstHitRank: odds.length > 0 ? expectation(odds, (r) => r) : null,
    hitAt1: within(1),
    hitAt5: within(5),
    hitAt10: within(10),
    reciprocalRank: expectsPassages ? expectation(odds, (r) => 1 / r) : null,
    answerRecallAt5: hasAnswers ? bit(retrieved.slice(0, 5).some((p) => holdsAnswer(p.text))) : null,
    ndcgAt10: expectsPassages ? ndcgAt10(retrieved, question.expected) : null,
    recallAt100: expectsPassages ? recallAt(100, retrieved, question.expected) : null,
    chatContains:
      answer && hasAnswers && !question.unanswerable ? bit(!!spoken && holdsAnswer(spoken.text)) : null,
    citedContains:
      answer && hasAnswers && !question.unanswerable
        ? bit(!!spoken && spoken.citations.some((c) => holdsAnswer(c.text)))
        : null,
    citedExpected:
      answer && expectsPassages && !question.unanswerable
        ? bit(
            !!spoken &&
              spoken.citations.some((c) =>
                question.expected.some((e) =>
                  matches(
                    { documentId: c.documentId, filename: c.filename, page: c.page, text: c.text, score: 0 },
                    e,
                  ),
                ),
              ),
          )
        : null,
    markersResolve: spoken
      ? bit(
          [...spoken.text.matchAll(MARKER)].every((m) => spoken.citations.some((c) => c.n === Number(m[1]))),
        )
      : null,
    unanswerableDeclined: answer && question.unanswerable ? bit(answer.declined) : null,
    falseDecline: answer && answerable ? bit(answer.declined) : null,
  };
}

/** A metric over the questions it applies to: its value and 95 % bootstrap interval. */
export interface Metric {
  value: number;
  low: number;
  high: number;
  n: number;
}

export const CHECK_METRICS = {
  hitAt1: 'hitAt1',
  hitAt5: 'hitAt5',
  hitAt10: 'hitAt10',
  mrr: 'reciprocalRank',
  answerRecallAt5: 'answerRecallAt5',
  ndcgAt10: 'ndcgAt10',
  recallAt100: 'recallAt100',
  chatContains: 'chatContains',
  citedContains: 'citedContains',
  citedExpected: 'citedExpected',
  markersResolve: 'markersResolve',
  unanswerableDeclined: 'unanswerableDeclined',
  falseDeclines: 'falseDecline',
} as const satisfies Record<string, keyof QuestionChecks>;

export const LATENCY_METRICS = ['searchP50Ms', 'searchP95Ms', 'chatP50Ms', 'chatP95Ms'] as const;

export type MetricName = keyof typeof CHECK_METRICS | (typeof LATENCY_METRICS)[number];
export type Metrics = Record<MetricName, Metric | null>;

/** Seeded, so that an evaluation's intervals are the same each time its numbers are summed up. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Nearest-rank percentile (p in 0..100) of a sorted sample. */
export function percentileOfSorted(sorted: readonly number[], p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function percentile(values: readonly number[], p: number): number {
  return percentileOfSorted(
    [...values].sort((a, b) => a - b),
    p,
  );
}

export interface BootstrapOptions {
  resamples: number;
  seed: number;
}
export const DEFAULT_BOOTSTRAP: BootstrapOptions = { resamples: 1000, seed: 40 };

/**
 * The statistic of the sample, and the 2.5th and 97.5th percentiles of it over resamples drawn with
 * replacement (the percentile bootstrap). Null for an empty sample.
 */
export function bootstrap(
  values: readonly number[],
  statistic: (sample: readonly number[]) => number,
  options: BootstrapOptions = DEFAULT_BOOTSTRAP,
): Metric | null {
  const n = values.length;
  if (n === 0) return null;
  const random = mulberry32(options.seed);
  const stats: number[] = [];
  const sample = new Array<number>(n);
  for (let b = 0; b < options.resamples; b++) {
    for (let i = 0; i < n; i++) sample[i] = values[Math.floor(random() * n)]!;
    stats.push(statistic(sample));
  }
  stats.sort((a, b) => a - b);
  return {
    value: statistic(values),
    low: percentileOfSorted(stats, 2.5),
    high: percentileOfSorted(stats, 97.5),
    n,
  };
}

export const meanOf = (sample: readonly number[]) => sample.reduce((a, b) => a + b, 0) / sample.length;

/**
 * A question once asked and checked: what the metrics are summed from. An evaluation keeps these (not
 * the passages' texts), so its metrics can be summed up again from what it stored.
 */
export interface ScoredQuestion {
  question: Pick<Question, 'language' | 'tags'>;
  checks: QuestionChecks;
  searchMs: number;
  chatMs?: number | null | undefined;
}

export function scored(outcome: QuestionOutcome): ScoredQuestion {
  return {
    question: outcome.question,
    checks: checkQuestion(outcome),
    searchMs: outcome.searchMs,
    chatMs: outcome.chatMs,
  };
}

/** Every metric over the outcomes given (null for a metric no question of them applies to). */
export function summarize(
  outcomes: readonly QuestionOutcome[],
  options: BootstrapOptions = DEFAULT_BOOTSTRAP,
): Metrics {
  return summarizeScored(outcomes.map(scored), options);
}

export function summarizeScored(
  questions: readonly ScoredQuestion[],
  options: BootstrapOptions = DEFAULT_BOOTSTRAP,
): Metrics {
  const result = {} as Metrics;
  for (const [name, check] of Object.entries(CHECK_METRICS) as [
    keyof typeof CHECK_METRICS,
    keyof QuestionChecks,
  ][]) {
    const values = questions.map((q) => q.checks[check]).filter((v): v is number => v !== null);
    result[name] = bootstrap(values, meanOf, options);
  }
  const search = questions.map((q) => q.searchMs);
  const chat = questions.flatMap((q) => (q.chatMs === undefined || q.chatMs === null ? [] : [q.chatMs]));
  result.searchP50Ms = bootstrap(search, (s) => percentile(s, 50), options);
  result.searchP95Ms = bootstrap(search, (s) => percentile(s, 95), options);
  result.chatP50Ms = bootstrap(chat, (s) => percentile(s, 50), options);
  result.chatP95Ms = bootstrap(chat, (s) => percentile(s, 95), options);
  return result;
}

/** The metrics per language and per tag (a question with several tags counts in each). */
export function summarizeGroups(
  outcomes: readonly QuestionOutcome[],
  options: BootstrapOptions = DEFAULT_BOOTSTRAP,
): { languages: Record<string, Metrics>; tags: Record<string, Metrics> } {
  return summarizeScoredGroups(outcomes.map(scored), options);
}

export function summarizeScoredGroups(
  questions: readonly ScoredQuestion[],
  options: BootstrapOptions = DEFAULT_BOOTSTRAP,
): { languages: Record<string, Metrics>; tags: Record<string, Metrics> } {
  const byLanguage = new Map<string, ScoredQuestion[]>();
  const byTag = new Map<string, ScoredQuestion[]>();
  const add = (map: Map<string, ScoredQuestion[]>, key: string, q: ScoredQuestion) => {
    const list = map.get(key);
    if (list) list.push(q);
    else map.set(key, [q]);
  };
  for (const q of questions) {
    if (q.question.language) add(byLanguage, q.question.language, q);
    for (const tag of new Set(q.question.tags)) add(byTag, tag, q);
  }
  const sum = (map: Map<string, ScoredQuestion[]>) =>
    Object.fromEntries(
      [...map].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, summarizeScored(v, options)]),
    );
  return { languages: sum(byLanguage), tags: sum(byTag) };
}

const NO_CHECKS = Object.fromEntries(
  [...Object.values(CHECK_METRICS), 'firstHitRank'].map((k) => [k, null]),
) as unknown as QuestionChecks;

/** Checks kept by an older version: the checks it did not have are not applicable (null). */
export const storedChecks = (checks: Partial<QuestionChecks>): QuestionChecks => ({
  ...NO_CHECKS,
  ...checks,
});

const NO_METRICS = Object.fromEntries(
  [...Object.keys(CHECK_METRICS), ...LATENCY_METRICS].map((k) => [k, null]),
) as unknown as Metrics;

/** Metrics summed up by an older version: the metrics it did not have are null. */
export const storedMetrics = (metrics: Partial<Metrics>): Metrics => ({ ...NO_METRICS, ...metrics });
