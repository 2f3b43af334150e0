/**
 * npm run bench:answers — SQuAD v1.1 dev through the service's own pipeline: every paragraph uploaded
 * as one document (under its article's title) into a running service, then a fixed seeded sample of
 * the held-out articles' questions (bench/lib/data.ts; the tuning aid uses the others) stored as a
 * question set and asked by an evaluation (issue 40; answers as chat gives them by default), which
 * scores them: the answer contains a gold answer (SQuAD's normalisation, `match: "squad"`), a
 * citation points at the gold paragraph, every [n] marker resolves to a returned citation.
 *
 * Options: --label NAME, --env KEY=VALUE (repeatable), --questions N (default 400), --articles N
 * (only the first N articles' paragraphs and questions: a smaller run).
 */
import { dataDir, loadSquad, sample, squadFile } from './lib/data.js';
import { ServiceClient } from './lib/driver.js';
import { evaluateThroughService, metricValue, SQUAD_CONFIGURATION, squadQuestions } from './lib/engine.js';
import { fixed, parseBenchArgs, writeResults } from './lib/results.js';
import { describeMachine, startServiceProcess } from './lib/service-process.js';

const { env, opts } = parseBenchArgs(process.argv.slice(2));
const label = opts.label ?? 'default';
const questionCount = Number(opts.questions ?? 400);
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let { paragraphs, questions } = loadSquad(dataDir());
if (opts.articles) {
  const keep = new Set(
    paragraphs
      .map((p) => p.article)
      .filter((a, i, all) => all.indexOf(a) === i)
      .slice(0, Number(opts.articles)),
  );
  paragraphs = paragraphs.filter((p) => keep.has(p.article));
  const ids = new Set(paragraphs.map((p) => p.id));
  questions = questions.filter((q) => ids.has(q.paragraphId));
}
const asked = sample(
  questions.filter((q) => q.split === 'holdout'),
  questionCount,
  20240611,
);

const log = (s: string) => process.stdout.write(`${s}\n`);
log(
  `SQuAD: ${paragraphs.length} paragraphs, ${asked.length} of ${questions.length} questions; service env ${JSON.stringify(env)}`,
);
const svc = await startServiceProcess(adminUrl, env, (l) => log(`  [service] ${l}`));
try {
  const client = new ServiceClient(svc.url, svc.key);
  const t0 = performance.now();
  const { workspaceId } = await client.ingest(paragraphs.map(squadFile), { log });
  const ingestSeconds = (performance.now() - t0) / 1000;
  log(`ingested in ${ingestSeconds.toFixed(1)} s`);
  const { evaluation, outcomes, seconds } = await evaluateThroughService(
    svc,
    workspaceId,
    'SQuAD held-out sample',
    squadQuestions(asked),
    [SQUAD_CONFIGURATION],
    log,
  );
  const metric = (name: string) => evaluation.results?.[0]?.metrics[name as 'hitAt1'] ?? null;
  const spoken = metric('markersResolve');
  const answered = outcomes.filter((o) => o.answer !== null);
  const summary = {
    questions: asked.length,
    answerContainsGold: metricValue(evaluation, 'chatContains'),
    citationAtGold: metricValue(evaluation, 'citedExpected'),
    // Over answers given (a declined one has no markers): how many had a marker without a citation.
    answersWithUnresolvedMarkers: spoken ? Math.round((1 - spoken.value) * spoken.n) : 0,
    declined: answered.filter((o) => o.answer?.declined).length,
    latencyMs: { p50: metricValue(evaluation, 'chatP50Ms'), p95: metricValue(evaluation, 'chatP95Ms') },
    evaluation: { id: evaluation.id, seconds },
  };
  log(
    `answer contains gold ${fixed(summary.answerContainsGold)}  citation at gold ${fixed(summary.citationAtGold)}  answers with unresolved markers ${summary.answersWithUnresolvedMarkers}  declined ${summary.declined}`,
  );
  const byId = new Map(asked.map((q) => [q.id, q]));
  const failures = outcomes
    .filter((o) => o.checks.chatContains !== 1 || o.checks.citedExpected !== 1)
    .slice(0, 60)
    .map((o) => ({
      id: o.tags[0],
      question: o.q,
      gold: byId.get(o.tags[0] ?? '')?.answers ?? [],
      answer: o.answer?.text ?? '',
      containsGold: o.checks.chatContains === 1,
      citedGold: o.checks.citedExpected === 1,
    }));
  const result = {
    benchmark: 'squad-answers',
    label,
    date: new Date().toISOString(),
    machine: describeMachine(),
    serviceEnv: env,
    paragraphs: paragraphs.length,
    sampleSeed: 20240611,
    split: 'holdout',
    ingest: { seconds: ingestSeconds },
    ...summary,
    failures,
  };
  const md = [
    `# SQuAD v1.1 dev answers (${label})`,
    '',
    `${result.date}; ${result.machine.cpu}, ${result.machine.cores} cores, Node ${result.machine.node}.`,
    `${paragraphs.length} paragraphs uploaded over HTTP into \`docslurp serve\`, one document each; ${asked.length} questions (seeded sample of the held-out articles) stored as a question set and asked by an evaluation (answers as chat gives them by default; ${fixed(seconds, 1)} s), whose metrics these are.`,
    `Service environment: \`${JSON.stringify(env)}\`.`,
    '',
    '| answer contains gold | citation at gold paragraph | answers with unresolved markers | declined | chat p50 ms | chat p95 ms |',
    '| --- | --- | --- | --- | --- | --- |',
    `| ${fixed(summary.answerContainsGold)} | ${fixed(summary.citationAtGold)} | ${summary.answersWithUnresolvedMarkers} | ${summary.declined} | ${fixed(summary.latencyMs.p50, 1)} | ${fixed(summary.latencyMs.p95, 1)} |`,
    '',
    '*answer contains gold*: `chatContains` with `match: "squad"`; *citation at gold paragraph*: `citedExpected`; latency as the worker timed the chat operation (no HTTP).',
    '',
    'Targets (default configuration): answer contains gold ≥ 0.70, citation at gold ≥ 0.85, unresolved markers 0.',
  ].join('\n');
  log(`wrote ${writeResults(`answers-${label}`, result, md).join(', ')}`);
} finally {
  await svc.stop();
}
