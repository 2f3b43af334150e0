/**
 * npm run bench:manual — questions asked in people's own words over real manuals (issue 16): every
 * HTML page of a Debian documentation package uploaded whole over HTTP into the built service in
 * embedded mode, then the questions of bench/manual/<manual>.json stored as a question set and asked
 * by an evaluation (issue 40: search topK 5, default mode, and chat's answer), which scores them.
 * Reports its answer recall@5, page hit@5, page MRR@5, chat answers that contain the answer, false
 * declines, and declines of the questions the manual cannot answer, per manual and split (tags).
 * Every run first checks that each answer pattern matches its page.
 *
 * Options: --manual debian-handbook|git-doc|sqlite-tables|all (default all), --split tune|holdout|all (default
 * all), --label NAME (results file bench/results/manual-NAME.*, default "default"), --reuse (keep the
 * ingested workspace in node_modules/.cache/docslurp-bench-manual, keyed by manual, package version,
 * service environment and the ingestion code, and start every later run from a copy of it),
 * --env KEY=VALUE (service configuration, repeatable).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stopLeftoverPostgres } from '../packages/service/test/support/spawn.js';
import { repoRoot } from './lib/data.js';
import { ServiceClient } from './lib/driver.js';
import { evaluateThroughService, metricValue } from './lib/engine.js';
import { waitForIndexed } from './lib/index-state.js';
import {
  extractedAnswers,
  kindTag,
  type ManualScores,
  manualQuestions,
  manualScores,
  outcomeRecord,
  TOP_K,
} from './lib/manual-eval.js';
import { loadManualSet, type ManualSet, manualPages, verifyAnswers } from './lib/manual-set.js';
import { type Manual, manualDir } from './lib/manuals.js';
import { fixed, parseBenchArgs, writeResults } from './lib/results.js';
import { describeMachine, startEmbeddedService } from './lib/service-process.js';

const run = promisify(execFile);
const MANUALS = ['debian-handbook', 'git-doc', 'sqlite-tables'];
const SPLITS = ['tune', 'holdout'];

const argv = process.argv.slice(2);
const reuse = argv.includes('--reuse');
const { env, opts } = parseBenchArgs(argv.filter((a) => a !== '--reuse'));
const label = opts.label ?? 'default';
const manualNames = (opts.manual ?? 'all') === 'all' ? MANUALS : [opts.manual!];
const split = opts.split ?? 'all';
for (const m of manualNames) if (!MANUALS.includes(m)) throw new Error(`--manual: unknown manual ${m}`);
if (split !== 'all' && !SPLITS.includes(split)) throw new Error('--split takes tune, holdout or all');
const KEY = `dsk_${randomBytes(16).toString('hex')}`;
const log = (s: string) => process.stdout.write(`${s}\n`);
const serviceLog = (l: string) => log(`  [service] ${l}`);

// Beside the other tools' caches: git and Biome both leave node_modules alone, and it outlives /tmp.
const cacheRoot = path.join(repoRoot, 'node_modules/.cache/docslurp-bench-manual');

/**
 * A fingerprint of what decides the stored workspace: the service's sources that the ingestion path
 * loads (parsing, chunking, indexing, the index adapter, followed through their relative imports; the
 * benchmark runs the build of these same sources), the service's dependencies and the service
 * environment. Search-time code is not in it, so a change to ranking or answers reuses the workspace,
 * while a change to what is stored builds it again.
 */
function ingestionFingerprint(serviceEnv: Record<string, string>): string {
  const service = path.join(repoRoot, 'packages/service');
  const src = path.join(service, 'src');
  const hash = createHash('sha256')
    .update(JSON.stringify(serviceEnv))
    .update(readFileSync(path.join(service, 'package.json')));
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    hash.update(path.relative(src, file)).update(source);
    for (const m of source.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)\.js['"]/g)) {
      visit(path.resolve(path.dirname(file), `${m[1]}.ts`));
    }
  };
  for (const root of [
    'main/worker.ts',
    'adapters/sandbox/child.ts',
    'parsing/parse.ts',
    'adapters/index/lancedb.ts',
  ]) {
    visit(path.join(src, root));
  }
  return hash.digest('hex').slice(0, 12);
}

/** A folder for embedded mode that the `postgres` user can enter when the benchmark runs as root. */
async function dataFolder(parent: string, prefix: string): Promise<string> {
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(path.join(parent, prefix));
  await chmod(dir, 0o755);
  return dir;
}

interface Built {
  workspaceId: string;
  key: string;
  documents: number;
  ingestSeconds: number;
  indexedRows: number;
  builtAt: string;
}

/** Uploads every page into a fresh service on `dataDir`, waits for the runs and the BM25 index. */
async function build(dataDir: string, set: ManualSet, manual: Manual): Promise<Built> {
  const pages = manualPages(manual, set);
  const files = pages.map((p) => ({
    name: p.name,
    content: readFileSync(p.file, 'utf8'),
    type: 'text/html',
  }));
  const svc = await startEmbeddedService(dataDir, KEY, env, serviceLog);
  try {
    const client = new ServiceClient(svc.url, svc.key);
    const t0 = performance.now();
    const { workspaceId } = await client.ingest(files, { log });
    const ingestSeconds = (performance.now() - t0) / 1000;
    // Every run measures the same index: the one the worker's maintenance leaves once it caught up.
    const state = await waitForIndexed(path.join(dataDir, 'index'), workspaceId, 10 * 60_000);
    if (state.unindexed > 0) throw new Error(`${state.unindexed} rows still outside the BM25 index`);
    log(`  ${files.length} pages ingested in ${ingestSeconds.toFixed(1)} s, ${state.rows} passages indexed`);
    return {
      workspaceId,
      key: KEY,
      documents: files.length,
      ingestSeconds,
      indexedRows: state.rows,
      builtAt: new Date().toISOString(),
    };
  } finally {
    await svc.stop();
    stopLeftoverPostgres(dataDir);
  }
}

/** The data folder to ask the questions in: a fresh build, or a copy of the kept one (--reuse). */
async function prepare(set: ManualSet, manual: Manual) {
  if (!reuse) {
    const dir = await dataFolder(os.tmpdir(), `docslurp-manual-${set.name}-`);
    const built = await build(dir, set, manual);
    return { dir, built, reused: false, cleanup: () => rm(dir, { recursive: true, force: true }) };
  }
  const key = `${set.name}-${manual.version.replace(/[^\w.+-]/g, '_')}-${ingestionFingerprint(env)}`;
  const kept = path.join(cacheRoot, key);
  const manifest = path.join(kept, 'manifest.json');
  const reused = existsSync(manifest);
  if (!reused) {
    // One kept workspace per manual: an older build (older ingestion code or settings) goes.
    if (existsSync(cacheRoot)) {
      for (const old of readdirSync(cacheRoot).filter((d) => d.startsWith(`${set.name}-`))) {
        await rm(path.join(cacheRoot, old), { recursive: true, force: true });
      }
    }
    await mkdir(kept, { recursive: true });
    await chmod(cacheRoot, 0o755);
    await chmod(kept, 0o755);
    const data = path.join(kept, 'data');
    await mkdir(data);
    await chmod(data, 0o755);
    const built = await build(data, set, manual);
    await writeFile(manifest, `${JSON.stringify(built, null, 2)}\n`);
  } else {
    log(`  reusing the workspace kept in ${kept}`);
  }
  const built = JSON.parse(await readFile(manifest, 'utf8')) as Built;
  // A copy (owners and modes kept, as PostgreSQL wants them), so that every run starts from the same state.
  const dir = await dataFolder(os.tmpdir(), `docslurp-manual-${set.name}-`);
  await run('cp', ['-a', `${path.join(kept, 'data')}/.`, dir]);
  return { dir, built, reused, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

interface ManualRun {
  name: string;
  package: string;
  version: string;
  source: string;
  pages: number;
  verifiedPatterns: number;
  ingest: { seconds: number; reused: boolean; builtAt: string; passages: number };
  evaluationId: string;
  evaluationSeconds: number;
  scores: Record<string, ManualScores>;
  byKind: Record<string, { answerable: number; answerRecall5: number; chatContains: number }>;
  latencyMs: Record<string, number>;
  questions: ReturnType<typeof outcomeRecord>[];
}

async function evaluate(name: string): Promise<ManualRun> {
  const set = loadManualSet(name);
  const manual = await manualDir(set.package);
  const pages = manualPages(manual, set);
  // A pattern that no longer matches its page would score every system zero on that question.
  const { verified } = verifyAnswers(set, pages);
  log(
    `${name}: ${set.package} ${manual.version} (${manual.source}), ${pages.length} pages, ${verified} answer patterns verified`,
  );
  const asked = (q: { split: string }) => split === 'all' || q.split === split;
  const answerable = set.answerable.filter(asked);
  const unanswerable = set.unanswerable.filter(asked);
  const { dir, built, reused, cleanup } = await prepare(set, manual);
  try {
    const svc = await startEmbeddedService(dir, built.key, env, serviceLog);
    try {
      const client = new ServiceClient(svc.url, svc.key);
      const extracted = await extractedAnswers(client, built.workspaceId, answerable);
      // Scored by the service's evaluation engine, as a user's own question set is (issue 40).
      const { evaluation, outcomes, seconds } = await evaluateThroughService(
        svc,
        built.workspaceId,
        name,
        manualQuestions(answerable, unanswerable),
        [{ name: 'default', search: { topK: TOP_K } }],
        log,
      );
      const extractedShare = (s: string) => {
        const inSplit = answerable.map((q) => s === 'all' || q.split === s);
        const of = inSplit.filter(Boolean).length;
        return { share: of ? extracted.filter((e, i) => e && inSplit[i]).length / of : Number.NaN };
      };
      const scores: Record<string, ManualScores> = {};
      for (const s of split === 'all' ? [...SPLITS, 'all'] : [split]) {
        const n = [...answerable, ...unanswerable].filter((q) => s === 'all' || q.split === s).length;
        // git-doc is all holdout: no empty tune row.
        if (n > 0)
          scores[s] = manualScores(evaluation, extractedShare(s), s === 'all' ? undefined : { tag: s });
      }
      const byKind: ManualRun['byKind'] = {};
      for (const kind of [...new Set(answerable.map((q) => q.kind))].sort()) {
        const s = manualScores(evaluation, { share: Number.NaN }, { tag: kindTag(kind) });
        byKind[kind] = {
          answerable: s.answerable,
          answerRecall5: s.answerRecall5,
          chatContains: s.chatContains,
        };
      }
      return {
        name,
        package: set.package,
        version: manual.version,
        source: manual.source,
        pages: pages.length,
        verifiedPatterns: verified,
        ingest: { seconds: built.ingestSeconds, reused, builtAt: built.builtAt, passages: built.indexedRows },
        evaluationId: evaluation.id,
        evaluationSeconds: seconds,
        scores,
        byKind,
        latencyMs: {
          searchP50: metricValue(evaluation, 'searchP50Ms'),
          searchP95: metricValue(evaluation, 'searchP95Ms'),
          chatP50: metricValue(evaluation, 'chatP50Ms'),
          chatP95: metricValue(evaluation, 'chatP95Ms'),
        },
        questions: outcomes.map(outcomeRecord),
      };
    } finally {
      await svc.stop();
      stopLeftoverPostgres(dir);
    }
  } finally {
    await cleanup();
  }
}

const row = (m: string, s: string, r: ManualScores) =>
  `| ${m} | ${s} | ${r.answerable} | ${fixed(r.answerExtracted)} | ${fixed(r.answerRecall5)} | ${fixed(r.pageHit5)} | ${fixed(r.mrr5)} | ${fixed(r.chatContains)} | ${r.falseDeclines} | ${r.unanswerable} | ${r.declined} (${fixed(r.declineRate, 2)}) |`;

const runs: ManualRun[] = [];
for (const name of manualNames) runs.push(await evaluate(name));

const header = [
  '| manual | split | answerable | answer extracted | answer recall@5 | page hit@5 | page MRR@5 | chat contains | false declines | unanswerable | declined |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
];
const table = [
  ...header,
  ...runs.flatMap((r) => Object.entries(r.scores).map(([s, sc]) => row(r.name, s, sc))),
];
log(`\n${table.join('\n')}`);

const machine = describeMachine();
const date = new Date().toISOString();
const md = [
  `# Manual questions (${label})`,
  '',
  `${date}; ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}.`,
  'Every HTML page of each manual uploaded whole over HTTP into `docslurp serve` (embedded mode); the questions',
  `stored as a question set and asked by an evaluation (\`POST /v1/evaluations\`: search topK ${TOP_K}, default mode;`,
  'answers as chat gives them by default), which scores them: the figures below are its metrics (docs/evaluation.md).',
  `Service environment: \`${JSON.stringify(env)}\`. Questions: bench/manual/*.json (see bench/README.md).`,
  '',
  ...runs.map(
    (r) =>
      `- ${r.name}: Debian package \`${r.package}\` ${r.version}, ${r.pages} pages, ${r.ingest.passages} passages; ingest ${fixed(r.ingest.seconds, 1)} s${r.ingest.reused ? ` (workspace reused, built ${r.ingest.builtAt})` : ''}; evaluation ${fixed(r.evaluationSeconds, 1)} s; search p50 ${fixed(r.latencyMs.searchP50!, 1)} ms, chat p50 ${fixed(r.latencyMs.chatP50!, 1)} ms (in the worker).`,
  ),
  '',
  ...table,
  '',
  "*answer extracted*: the answer is in the service's extracted text of its page (`GET /v1/documents/{id}/text`), the",
  'ceiling of answer recall@5; *answer recall@5* (`answerRecallAt5`): a top-5 passage matches the answer pattern;',
  '*page hit@5* (`hitAt5`): a top-5 passage comes from the answering page (passages of equal score count by their odds);',
  '*page MRR@5* (`mrr`): 1 / rank of the first passage from the answering page (before the benchmark scored through',
  'the evaluation engine, its MRR@5 was by the first passage matching the answer); *chat contains* (`chatContains`): the',
  'answer (markers and markup removed) matches the pattern; *false declines*: answerable questions the chat declined.',
  '',
  'Targets (issue 16, default configuration): answer recall@5 ≥ 0.85, chat contains ≥ 0.70, unanswerable declined ≥ 0.80.',
  'The holdout split is never used for tuning; git-doc is all holdout.',
  '',
  '## By kind of question',
  '',
  '| manual | kind | answerable | answer recall@5 | chat contains |',
  '| --- | --- | --- | --- | --- |',
  ...runs.flatMap((r) =>
    Object.entries(r.byKind).map(
      ([k, s]) =>
        `| ${r.name} | ${k} | ${s.answerable} | ${fixed(s.answerRecall5)} | ${fixed(s.chatContains)} |`,
    ),
  ),
  '',
  `Per-question results (top-${TOP_K} file names, the answer, the checks passed and failed): bench/results/manual-${label}.json.`,
].join('\n');
const json = {
  benchmark: 'manual-questions',
  label,
  date,
  machine,
  serviceEnv: env,
  split,
  topK: TOP_K,
  manuals: runs,
};
log(`wrote ${writeResults(`manual-${label}`, json, md).join(', ')}`);
