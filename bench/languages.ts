/**
 * npm run bench:languages — questions in six languages and off-topic questions through the running
 * service (issue 24). One embedded-mode `docslurp serve` holds every workspace, each uploaded over
 * HTTP as a user would:
 *
 * - the Debian Reference in English, German, French, Spanish, Japanese and Simplified Chinese (every
 *   HTML page of its language, Debian packages debian-reference-<lang>), asked its own language's
 *   questions (bench/languages/debian-reference-<lang>.json: answerable and unanswerable), and the
 *   German workspace also German questions that write its compounds apart or join what it writes
 *   apart (bench/languages/debian-reference-de-compounds.json, issue 41); and each language's
 *   follow-ups (the sets' `followups`, issue 41): asked after their first turn (`… follow-ups`) and
 *   without it (`… follow-ups alone`, what the answerer gave before it read the conversation);
 * - the Debian FAQ in Simplified Chinese (debian-faq-zh-cn, every HTML page), asked questions a reader
 *   asks of a FAQ (bench/languages/debian-faq-zh-cn.json, issue 41);
 * - off-topic: the Debian handbook's questions asked of git's manual and git's asked of the handbook
 *   (bench/manual/), and questions of everyday life in six languages asked of four small workspaces of
 *   3 to 30 technical documents, with the questions those workspaces do answer
 *   (bench/languages/off-topic.json).
 *
 * - cross-language: the German set's questions (written as the English set's, number for number) asked
 *   of the English workspace, with the English answers (issue 41), the German words translated with
 *   FreeDict's German–English dictionary (Debian package dict-freedict-deu-eng, built into the
 *   service's DICTIONARIES_DIR by packages/service/scripts/dictionaries.mjs, as at install time);
 *   `--env DICTIONARIES_DIR=/nonexistent` asks them untranslated.
 *
 * Each set of questions is stored as a question set and asked by an evaluation (issue 40: search
 * topK 5, answers as chat gives them by default; a `declined` answer is a decline), which scores it.
 * Reported per set and split (tune questions were used to tune, holdout questions never): answer
 * recall@5, chat contains the answer, false declines, declines.
 * Every run measures the settled state: each workspace's runs completed and its index folded.
 *
 * Options: --label NAME (bench/results/languages-NAME.*, default "default"), --split tune|holdout|all
 * (default all), --env KEY=VALUE.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Evaluation, EvaluationOutcome } from '../packages/sdk/src/types.js';
import { stopLeftoverPostgres } from '../packages/service/test/support/spawn.js';
import { repoRoot } from './lib/data.js';
import { ServiceClient, type UploadFile } from './lib/driver.js';
import { type BenchQuestion, evaluateThroughService, meanCheck, metricValue } from './lib/engine.js';
import { waitForIndexed } from './lib/index-state.js';
import { outcomeRecord } from './lib/manual-eval.js';
import { loadManualSet, type ManualSet, manualPages, verifyAnswers } from './lib/manual-set.js';
import { manualDir } from './lib/manuals.js';
import { percentile } from './lib/metrics.js';
import { loadOffTopicSet, offTopicFiles, verifyOffTopicAnswers } from './lib/offtopic-set.js';
import { fixed, parseBenchArgs, writeResults } from './lib/results.js';
import { describeMachine, startEmbeddedService } from './lib/service-process.js';

const LANGUAGES = ['en', 'de', 'fr', 'es', 'ja', 'zh-cn'];
/** Further sets asked of a language's workspace: German compounds written apart or joined (issue 41). */
const MORE_SETS: Record<string, string[]> = { de: ['debian-reference-de-compounds'] };
/** Manuals of their own beside the Debian Reference: a Chinese FAQ, its questions its headings (issue 41). */
const FAQS = ['debian-faq-zh-cn'];
const { env, opts } = parseBenchArgs(process.argv.slice(2));
const label = opts.label ?? 'default';
const split = opts.split ?? 'all';
const KEY = `dsk_${randomBytes(16).toString('hex')}`;
const log = (s: string) => process.stdout.write(`${s}\n`);

/** One set of questions asked of one workspace: an evaluation of its own. */
interface Asked {
  set: string;
  evaluationId: string;
  seconds: number;
  outcomes: EvaluationOutcome[];
  evaluation: Evaluation;
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-languages-'));
await chmod(dir, 0o755);
/** The bilingual dictionaries, built where the service reads them by default (DATA_DIR/dictionaries). */
const dictionary = await manualDir('dict-freedict-deu-eng');
execFileSync(process.execPath, [
  path.join(repoRoot, 'packages/service/scripts/dictionaries.mjs'),
  path.join(dictionary.dir, 'usr/share/dictd'),
  path.join(dir, 'dictionaries'),
]);
const svc = await startEmbeddedService(dir, KEY, env, (l) => log(`  [service] ${l}`));
const client = new ServiceClient(svc.url, svc.key);
const results: Asked[] = [];
const ingest: Record<string, { documents: number; seconds: number; passages: number }> = {};

/** Uploads a workspace, waits for its runs and for its index to be folded (the settled state). */
async function workspace(name: string, files: UploadFile[]): Promise<string> {
  const t0 = performance.now();
  const { workspaceId } = await client.ingest(files);
  const state = await waitForIndexed(path.join(dir, 'index'), workspaceId, 10 * 60_000);
  if (state.unindexed > 0) throw new Error(`${name}: ${state.unindexed} rows still outside the index`);
  ingest[name] = { documents: files.length, seconds: (performance.now() - t0) / 1000, passages: state.rows };
  log(`${name}: ${files.length} documents, ${state.rows} passages, ${ingest[name]!.seconds.toFixed(1)} s`);
  return workspaceId;
}

const inSplit = (q: { split: string }) => split === 'all' || q.split === split;

/** Stores the questions as a set of the workspace and scores them with an evaluation (issue 40). */
async function ask(set: string, workspaceId: string, questions: BenchQuestion[]) {
  const run = await evaluateThroughService(
    svc,
    workspaceId,
    set,
    questions,
    [{ name: 'default', search: { topK: 5 } }],
    log,
  );
  results.push({
    set,
    evaluationId: run.evaluation.id,
    seconds: run.seconds,
    outcomes: run.outcomes,
    evaluation: run.evaluation,
  });
}

/** An answerable question: right when a top-5 passage and the answer match its pattern. */
const answerable = (
  q: { q: string; split: string; answer: string },
  language: string | undefined,
): BenchQuestion => ({ q: q.q, patterns: [q.answer], tags: [q.split], language: language ?? null });
/** A question the workspace cannot answer: right when declined. */
const unanswerable = (q: { q: string; split: string }, language: string | undefined): BenchQuestion => ({
  q: q.q,
  unanswerable: true,
  tags: [q.split],
  language: language ?? null,
});

const pagesOf = (set: ManualSet, manual: Awaited<ReturnType<typeof manualDir>>): UploadFile[] =>
  manualPages(manual, set).map((p) => ({
    name: p.name,
    content: readFileSync(p.file, 'utf8'),
    type: 'text/html',
  }));

/**
 * The German set's questions asked of the English manual: its questions are the English set's,
 * number for number ("drde-028" asks what "dren-028" asks), so each takes the English question's
 * page, answer and split.
 */
function crossLanguage(english: ManualSet, german: ManualSet) {
  const byNumber = new Map(english.answerable.map((q) => [q.id.slice(-3), q]));
  return german.answerable.flatMap((q) => {
    const en = byNumber.get(q.id.slice(-3));
    return en ? [{ q: q.q, split: en.split, answer: en.answer }] : [];
  });
}

const versions: Record<string, string> = {};
versions[dictionary.package] = dictionary.version;
try {
  for (const lang of LANGUAGES) {
    const set = loadManualSet(`debian-reference-${lang}`);
    const manual = await manualDir(set.package);
    versions[set.package] = manual.version;
    verifyAnswers(set, manualPages(manual, set));
    const ws = await workspace(set.name, pagesOf(set, manual));
    for (const asked of [set, ...(MORE_SETS[lang] ?? []).map(loadManualSet)]) {
      if (asked !== set) verifyAnswers(asked, manualPages(manual, asked));
      await ask(asked.name, ws, [
        ...asked.answerable.filter(inSplit).map((q) => answerable(q, asked.language)),
        ...asked.unanswerable.filter(inSplit).map((q) => unanswerable(q, asked.language)),
      ]);
    }
    // Follow-ups (issue 41): each asked after its first turn, and alone (the baseline), as sets of their own.
    const followups = (set.followups ?? []).filter(inSplit);
    if (followups.length > 0) {
      await ask(
        `${set.name} follow-ups`,
        ws,
        followups.map((f) => ({
          ...answerable(f, set.language),
          history: f.history.map((content) => ({ role: 'user' as const, content })),
        })),
      );
      await ask(
        `${set.name} follow-ups alone`,
        ws,
        followups.map((f) => answerable(f, set.language)),
      );
    }
    if (lang === 'en') {
      const from = crossLanguage(set, loadManualSet('debian-reference-de'));
      await ask(
        'debian-reference-de-to-en',
        ws,
        from.filter(inSplit).map((q) => answerable(q, 'de')),
      );
    }
  }

  for (const name of FAQS) {
    const set = loadManualSet(name);
    const manual = await manualDir(set.package);
    versions[set.package] = manual.version;
    verifyAnswers(set, manualPages(manual, set));
    const ws = await workspace(set.name, pagesOf(set, manual));
    await ask(set.name, ws, [
      ...set.answerable.filter(inSplit).map((q) => answerable(q, set.language)),
      ...set.unanswerable.filter(inSplit).map((q) => unanswerable(q, set.language)),
    ]);
  }

  // Off-topic: one manual's questions asked of the other's workspace.
  const manuals = new Map<string, { set: ManualSet; ws: string }>();
  for (const name of ['debian-handbook', 'git-doc']) {
    const set = loadManualSet(name);
    const manual = await manualDir(set.package);
    versions[set.package] = manual.version;
    manuals.set(name, { set, ws: await workspace(name, pagesOf(set, manual)) });
  }
  for (const [from, to] of [
    ['debian-handbook', 'git-doc'],
    ['git-doc', 'debian-handbook'],
  ] as const) {
    const { set } = manuals.get(from)!;
    await ask(
      `${from} → ${to}`,
      manuals.get(to)!.ws,
      [...set.answerable, ...set.unanswerable].filter(inSplit).map((q) => unanswerable(q, 'en')),
    );
  }

  // Off-topic: everyday questions over small workspaces, and what those workspaces do answer.
  const offTopic = loadOffTopicSet();
  const files = new Map<string, { name: string; file: string; type: string }>();
  for (const w of offTopic.workspaces)
    for (const f of await offTopicFiles(offTopic, w.id)) files.set(f.name, f);
  verifyOffTopicAnswers(offTopic, files);
  for (const w of offTopic.workspaces) {
    const ws = await workspace(
      `off-topic ${w.id}`,
      (await offTopicFiles(offTopic, w.id)).map((f) => ({
        name: f.name.replaceAll('/', '_'),
        content: readFileSync(f.file, 'utf8'),
        type: f.type,
      })),
    );
    await ask(
      `everyday → ${w.id}`,
      ws,
      offTopic.everyday.filter(inSplit).map((q) => unanswerable(q, q.language)),
    );
    await ask(
      `answerable ${w.id}`,
      ws,
      offTopic.answerable
        .filter((x) => x.workspace === w.id && inSplit(x))
        .map((q) => answerable(q, q.language)),
    );
  }
} finally {
  await svc.stop();
  stopLeftoverPostgres(dir);
  await rm(dir, { recursive: true, force: true });
}

interface Scores {
  answerable: number;
  recall5: number;
  chatContains: number;
  falseDeclines: number;
  unanswerable: number;
  declined: number;
}
/** A set's figures for one split, from its evaluation's metrics for that tag. */
function score(asked: Asked, s: string): Scores {
  const group = { tag: s };
  const n = (metric: string) => {
    const m = asked.evaluation.results?.[0]?.tags[s]?.[metric as 'hitAt1'];
    return m ? m.n : 0;
  };
  return {
    answerable: n('answerRecallAt5'),
    recall5: metricValue(asked.evaluation, 'answerRecallAt5', group),
    chatContains: metricValue(asked.evaluation, 'chatContains', group),
    falseDeclines: metricValue(asked.evaluation, 'falseDeclines', group),
    unanswerable: n('unanswerableDeclined'),
    declined: metricValue(asked.evaluation, 'unanswerableDeclined', group),
  };
}

const splits = split === 'all' ? ['tune', 'holdout'] : [split];
const row = (name: string, s: string, sc: Scores) =>
  `| ${name} | ${s} | ${sc.answerable} | ${fixed(sc.recall5)} | ${fixed(sc.chatContains)} | ${fixed(sc.falseDeclines)} | ${sc.unanswerable} | ${fixed(sc.declined)} |`;
const header = [
  '| set | split | answerable | answer recall@5 | chat contains | false declines | unanswerable | declined |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
];
const table: string[] = [...header];
const scores: Record<string, Record<string, Scores>> = {};
for (const asked of results) {
  for (const s of splits) {
    if (!asked.outcomes.some((o) => o.tags.includes(s))) continue;
    const setScores = scores[asked.set] ?? {};
    scores[asked.set] = setScores;
    setScores[s] = score(asked, s);
    table.push(row(asked.set, s, setScores[s]));
  }
}
// The issue's off-topic figure: every question asked of a workspace that does not answer it, over
// several evaluations (each question's check is the engine's).
const outcomesOf = (keep: (set: string) => boolean, s: string) =>
  results.filter((r) => keep(r.set)).flatMap((r) => r.outcomes.filter((o) => o.tags.includes(s)));
const summary = splits.map((s) => {
  const small = outcomesOf((set) => set.startsWith('everyday'), s);
  const large = outcomesOf((set) => set.includes('→') && !set.startsWith('everyday'), s);
  const crossLanguage = outcomesOf((set) => set.startsWith('answerable'), s).filter(
    (o) => o.language !== 'en',
  );
  const declined = (os: EvaluationOutcome[]) => fixed(meanCheck(os, 'unanswerableDeclined'));
  return `- ${s}: off-topic declined ${declined([...small, ...large])} (small workspaces ${declined(small)}, large ${declined(large)}); the small workspaces' answerable questions asked in another language than their documents' (${crossLanguage.length}) declined ${fixed(meanCheck(crossLanguage, 'falseDecline'))}.`;
});
const allOutcomes = results.flatMap((r) => r.outcomes);
const searchMs = allOutcomes.map((o) => o.searchMs);
const chatMs = allOutcomes.flatMap((o) => (o.chatMs === null ? [] : [o.chatMs]));
log(`\n${table.join('\n')}\n${summary.join('\n')}`);

const machine = describeMachine();
const date = new Date().toISOString();
const md = [
  `# Languages and off-topic questions (${label})`,
  '',
  `${date}; ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}.`,
  'Every workspace uploaded over HTTP into one `docslurp serve` (embedded mode) and measured once its runs had',
  'completed and its index was folded; each set of questions stored as a question set of its workspace and',
  'asked and scored by an evaluation (issue 40: search topK 5, answers as chat gives them by default; an answer',
  'of kind `declined` is a decline), whose metrics are the figures below (docs/evaluation.md).',
  `Service environment: \`${JSON.stringify(env)}\`. Packages: ${Object.entries(versions)
    .map(([p, v]) => `${p} ${v}`)
    .join(', ')}.`,
  `Search p50 ${fixed(percentile(searchMs, 50), 1)} ms, chat p50 ${fixed(percentile(chatMs, 50), 1)} ms, as the evaluations' worker measured them; evaluations ${fixed(
    results.reduce((t, r) => t + r.seconds, 0),
    1,
  )} s in all.`,
  '',
  ...table,
  '',
  ...summary,
  '',
  'Tune questions were used to tune (bench/languages-tune.ts, bench/languages-calibrate.ts); holdout questions',
  'never were. Targets (issue 24, holdout): answer recall@5 ≥ 0.80, chat contains ≥ 0.60, unanswerable declined',
  '≥ 0.75, false declines ≤ 0.05 in every language; off-topic declined ≥ 0.90.',
  '',
  `Per-question results: bench/results/languages-${label}.json.`,
].join('\n');
log(
  `wrote ${writeResults(
    `languages-${label}`,
    {
      benchmark: 'languages',
      label,
      date,
      machine,
      serviceEnv: env,
      ingest,
      scores,
      sets: results.map((r) => ({
        set: r.set,
        evaluationId: r.evaluationId,
        seconds: r.seconds,
        questions: r.outcomes.map(outcomeRecord),
      })),
    },
    md,
  ).join(', ')}`,
);
