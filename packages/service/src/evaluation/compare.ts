import {
  type BootstrapOptions,
  CHECK_METRICS,
  DEFAULT_BOOTSTRAP,
  LATENCY_METRICS,
  type Metric,
  type MetricName,
  meanOf,
  mulberry32,
  percentile,
  percentileOfSorted,
  type QuestionChecks,
} from './metrics.js';
import type { EvaluationRecord, OutcomeRow } from './store.js';

/**
 * Two evaluations compared (issue 40): `b` against `a` (the baseline), each metric's difference
 * `b - a` with a 95 % bootstrap interval, and the questions whose checks changed. When both asked the
 * same questions the questions are paired (resampled together, so the interval is that of the
 * change on these questions, much narrower than two separate intervals suggest); otherwise each side
 * is resampled on its own.
 */

export interface MetricComparison {
  a: Metric | null;
  b: Metric | null;
  difference: Metric | null;
}

export interface ChangedQuestion {
  ordinal: number;
  q: string;
  /** Checks it passed in `a` and fails in `b`, and the other way round. */
  worse: string[];
  better: string[];
}

export interface ConfigurationComparison {
  a: string;
  b: string;
  paired: boolean;
  metrics: Record<MetricName, MetricComparison>;
  changed: ChangedQuestion[];
}

export interface Comparison {
  a: string;
  b: string;
  configurations: ConfigurationComparison[];
}

/** Metrics where a rise is a loss. */
export const LOWER_IS_BETTER: ReadonlySet<MetricName> = new Set<MetricName>([
  'falseDeclines',
  ...LATENCY_METRICS,
]);

type Statistic = (sample: readonly number[]) => number;

/** The difference of a statistic, b - a, with its interval over paired or separate resamples. */
export function difference(
  a: readonly number[],
  b: readonly number[],
  statistic: Statistic,
  paired: boolean,
  options: BootstrapOptions = DEFAULT_BOOTSTRAP,
): Metric | null {
  if (a.length === 0 || b.length === 0) return null;
  if (paired && a.length !== b.length) throw new Error('paired samples of different lengths');
  const random = mulberry32(options.seed);
  const diffs: number[] = [];
  const sa = new Array<number>(a.length);
  const sb = new Array<number>(b.length);
  for (let r = 0; r < options.resamples; r++) {
    for (let i = 0; i < sa.length; i++) {
      const j = Math.floor(random() * a.length);
      sa[i] = a[j]!;
      if (paired) sb[i] = b[j]!;
    }
    if (!paired) for (let i = 0; i < sb.length; i++) sb[i] = b[Math.floor(random() * b.length)]!;
    diffs.push(statistic(sb) - statistic(sa));
  }
  diffs.sort((x, y) => x - y);
  return {
    value: statistic(b) - statistic(a),
    low: percentileOfSorted(diffs, 2.5),
    high: percentileOfSorted(diffs, 97.5),
    n: paired ? a.length : Math.min(a.length, b.length),
  };
}

const passed = (v: number | null | undefined) => (v === null || v === undefined ? undefined : v >= 0.5);

function compareConfiguration(
  a: EvaluationRecord,
  b: EvaluationRecord,
  [i, j]: [number, number],
  aRows: OutcomeRow[],
  bRows: OutcomeRow[],
): ConfigurationComparison {
  const aOf = new Map(aRows.filter((r) => r.configuration === i).map((r) => [r.ordinal, r.outcome]));
  const bOf = new Map(bRows.filter((r) => r.configuration === j).map((r) => [r.ordinal, r.outcome]));
  // Paired when both asked the same questions in the same order (the same set, or the same file
  // stored again, as `docslurp eval` does on every run).
  const sameQuestions =
    aOf.size === bOf.size && aOf.size > 0 && [...aOf].every(([o, x]) => bOf.get(o)?.q === x.q);
  const ordinals = sameQuestions ? [...aOf.keys()].sort((x, y) => x - y) : [];
  const paired = sameQuestions;
  const aResults = a.results?.find((r) => r.configuration === a.configurations[i]!.name);
  const bResults = b.results?.find((r) => r.configuration === b.configurations[j]!.name);
  const metrics = {} as Record<MetricName, MetricComparison>;
  const valuesOf = (
    map: Map<number, OutcomeRow['outcome']>,
    pick: (o: OutcomeRow['outcome']) => number | null,
  ) => [...map.values()].map(pick).filter((v): v is number => v !== null);
  for (const [name, check] of Object.entries(CHECK_METRICS) as [
    keyof typeof CHECK_METRICS,
    keyof QuestionChecks,
  ][]) {
    let diff: Metric | null;
    if (paired) {
      // Questions both sides checked this on.
      const both = ordinals.filter(
        (o) => aOf.get(o)!.checks[check] !== null && bOf.get(o)!.checks[check] !== null,
      );
      diff = difference(
        both.map((o) => aOf.get(o)!.checks[check]!),
        both.map((o) => bOf.get(o)!.checks[check]!),
        meanOf,
        true,
      );
    } else {
      diff = difference(
        valuesOf(aOf, (o) => o.checks[check]),
        valuesOf(bOf, (o) => o.checks[check]),
        meanOf,
        false,
      );
    }
    metrics[name] = {
      a: aResults?.metrics[name] ?? null,
      b: bResults?.metrics[name] ?? null,
      difference: diff,
    };
  }
  const latency = (name: (typeof LATENCY_METRICS)[number]) => {
    const p = name.endsWith('P50Ms') ? 50 : 95;
    const pick = name.startsWith('search')
      ? (o: OutcomeRow['outcome']) => o.searchMs
      : (o: OutcomeRow['outcome']) => o.chatMs;
    const statistic: Statistic = (s) => percentile(s, p);
    const both = paired
      ? ordinals.filter((o) => pick(aOf.get(o)!) !== null && pick(bOf.get(o)!) !== null)
      : [];
    return paired
      ? difference(
          both.map((o) => pick(aOf.get(o)!)!),
          both.map((o) => pick(bOf.get(o)!)!),
          statistic,
          true,
        )
      : difference(valuesOf(aOf, pick), valuesOf(bOf, pick), statistic, false);
  };
  for (const name of LATENCY_METRICS)
    metrics[name] = {
      a: aResults?.metrics[name] ?? null,
      b: bResults?.metrics[name] ?? null,
      difference: latency(name),
    };

  const changed: ChangedQuestion[] = [];
  for (const o of ordinals) {
    const [x, y] = [aOf.get(o)!, bOf.get(o)!];
    const worse: string[] = [];
    const better: string[] = [];
    for (const [name, check] of Object.entries(CHECK_METRICS) as [
      keyof typeof CHECK_METRICS,
      keyof QuestionChecks,
    ][]) {
      const [before, after] = [passed(x.checks[check]), passed(y.checks[check])];
      if (before === undefined || after === undefined || before === after) continue;
      // A false decline "passed" is one that happened: turning up is a loss.
      const gained = LOWER_IS_BETTER.has(name) ? !after : after;
      (gained ? better : worse).push(name);
    }
    if (worse.length || better.length) changed.push({ ordinal: o, q: y.q, worse, better });
  }
  return { a: a.configurations[i]!.name, b: b.configurations[j]!.name, paired, metrics, changed };
}

export function compareOutcomes(
  a: EvaluationRecord,
  b: EvaluationRecord,
  pairs: [number, number][],
  aRows: OutcomeRow[],
  bRows: OutcomeRow[],
): Comparison {
  return {
    a: a.id,
    b: b.id,
    configurations: pairs.map((pair) => compareConfiguration(a, b, pair, aRows, bRows)),
  };
}
