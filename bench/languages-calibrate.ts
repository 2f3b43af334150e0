/**
 * Fits the answerer's relevance decision (src/answers/relevance.ts) on the tune questions, behind
 * docs/decisions/0014: reads the signals bench/languages-tune.ts recorded with every decline rule off
 * (`--suite all --split tune --signals FILE`), fits a logistic regression of "the workspace answers
 * it" on the signals (answerable questions of every manual and of the small workspaces against
 * unanswerable and off-topic ones, the two classes weighed equally), and prints, for each threshold,
 * what declining below it would do on the same questions. Questions asked across languages (a German
 * question about English documents) are left out: no word-based signal can answer them.
 *
 * node bench/run.mjs languages-calibrate --signals FILE [--absent true]
 */
import { readFileSync } from 'node:fs';
import {
  answerProbability,
  DEFAULT_RELEVANCE,
  RELEVANCE_FEATURES,
  relevanceFeatures,
} from '../packages/service/src/answers/relevance.js';
import { parseBenchArgs } from './lib/results.js';

const { opts } = parseBenchArgs(process.argv.slice(2));
if (!opts.signals) throw new Error('--signals FILE (from languages-tune --signals) is required');
interface Row {
  suite: string;
  answerable: boolean;
  questionLanguage: string;
  set: string;
  signals?: Parameters<typeof relevanceFeatures>[0];
  open: { declined: boolean; contains: boolean; absent: boolean };
}
const all = JSON.parse(readFileSync(opts.signals, 'utf8')) as Row[];
const group = (r: Row) =>
  !r.answerable
    ? r.suite === 'offtopic'
      ? 'off-topic'
      : 'unanswerable'
    : r.suite === 'manuals'
      ? 'answerable'
      : r.questionLanguage === 'en'
        ? 'answerable'
        : 'across languages';
const rows = all.filter((r) => group(r) !== 'across languages');
// Declined before the decision: nothing to quote, or (English) a word that no dictionary and no passage knows.
const before = rows.map((r) => r.open.declined || !r.signals || (opts.absent === 'true' && r.open.absent));
const x = rows.map((r) => (r.signals ? relevanceFeatures(r.signals) : RELEVANCE_FEATURES.map(() => 0)));
const y = rows.map((r) => (r.answerable ? 1 : 0));
const fit = rows.map((_, i) => !before[i]);

const k = RELEVANCE_FEATURES.length;
const mean = Array.from({ length: k }, (_, j) => avg(x.filter((_, i) => fit[i]).map((v) => v[j]!)));
const sd = Array.from(
  { length: k },
  (_, j) => Math.sqrt(avg(x.filter((_, i) => fit[i]).map((v) => (v[j]! - mean[j]!) ** 2))) || 1,
);
const z = x.map((v) => [...v.map((value, j) => (value - mean[j]!) / sd[j]!), 1]);
const positives = y.filter((v, i) => fit[i] && v === 1).length;
const negatives = fit.filter(Boolean).length - positives;
const weight = (i: number) => (y[i] === 1 ? 0.5 / positives : 0.5 / negatives);
let beta = new Array(k + 1).fill(0) as number[];
for (let it = 0; it < 20_000; it++) {
  const grad = new Array(k + 1).fill(0) as number[];
  for (let i = 0; i < rows.length; i++) {
    if (!fit[i]) continue;
    const err = (sigmoid(dot(z[i]!, beta)) - y[i]!) * weight(i);
    for (let j = 0; j <= k; j++) grad[j]! += err * z[i]![j]!;
  }
  beta = beta.map((b, j) => b - 0.5 * (grad[j]! + 0.01 * b));
}
// In the features' own units: score = intercept + Σ w·feature.
const weights = RELEVANCE_FEATURES.map((_, j) => beta[j]! / sd[j]!);
const intercept = beta[k]! - weights.reduce((a, w, j) => a + w * mean[j]!, 0);
const p = x.map((v) => sigmoid(intercept + v.reduce((a, value, j) => a + weights[j]! * value, 0)));

process.stdout.write(
  `${rows.length} questions (${all.length - rows.length} asked across languages left out)\n`,
);
process.stdout.write(
  `weights: { intercept: ${intercept.toFixed(3)}, ${RELEVANCE_FEATURES.map((f, j) => `${f}: ${weights[j]!.toFixed(3)}`).join(', ')} }\n`,
);
process.stdout.write(
  'threshold | false declines | chat contains | unanswerable declined | off-topic declined\n',
);
/** What declining below `t` (on probabilities `ps`) does on the same questions, as a table line. */
const line = (label: string, ps: number[], t: number) => {
  const declined = rows.map((_, i) => before[i]! || ps[i]! < t);
  const share = (g: string, f: (i: number) => boolean) => {
    const idx = rows.map((r, i) => (group(r) === g ? i : -1)).filter((i) => i >= 0);
    return (idx.filter(f).length / idx.length).toFixed(3);
  };
  return `${label} | ${share('answerable', (i) => declined[i]!)} | ${share('answerable', (i) => !declined[i] && rows[i]!.open.contains)} | ${share('unanswerable', (i) => declined[i]!)} | ${share('off-topic', (i) => declined[i]!)}\n`;
};
for (let t = 0.05; t < 0.71; t += 0.05) process.stdout.write(line(t.toFixed(2), p, t));
// The decision the service ships, on the same questions: what a refit is compared with.
const shipped = rows.map((r) => (r.signals ? answerProbability(r.signals, DEFAULT_RELEVANCE) : 0));
process.stdout.write(
  line(`shipped (${DEFAULT_RELEVANCE.minProbability})`, shipped, DEFAULT_RELEVANCE.minProbability),
);

function avg(v: number[]): number {
  return v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
}
function dot(a: number[], b: number[]): number {
  return a.reduce((s, v, i) => s + v * b[i]!, 0);
}
function sigmoid(v: number): number {
  return 1 / (1 + Math.exp(-v));
}
