/**
 * npm run bench:languages — questions in six languages and off-topic questions through the running
 * service (issue 24). One embedded-mode `docslurp serve` holds every workspace, each uploaded over
 * HTTP as a user would:
 *
 * - the Debian Reference in English, German, French, Spanish, Japanese and Simplified Chinese (every
 *   HTML page of its language, Debian packages debian-reference-<lang>), asked its own language's
 *   questions (bench/languages/debian-reference-<lang>.json: answerable and unanswerable);
 * - off-topic: the Debian handbook's questions asked of git's manual and git's asked of the handbook
 *   (bench/manual/), and questions of everyday life in six languages asked of four small workspaces of
 *   3 to 30 technical documents, with the questions those workspaces do answer
 *   (bench/languages/off-topic.json).
 *
 * Each question goes through POST /v1/search (topK 5) and POST /v1/search/chat (defaults); a chat
 * answer of kind `declined` is a decline. Reported per set and split (tune questions were used to
 * tune, holdout questions never): answer recall@5, chat contains the answer, false declines, declines.
 * Every run measures the settled state: each workspace's runs completed and its index folded.
 *
 * Options: --label NAME (bench/results/languages-NAME.*, default "default"), --split tune|holdout|all
 * (default all), --env KEY=VALUE.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stopLeftoverPostgres } from '../packages/service/test/support/spawn.js';
import { ServiceClient, type UploadFile } from './lib/driver.js';
import { waitForIndexed } from './lib/index-state.js';
import { comparableText } from './lib/manual-eval.js';
import {
  answerPattern,
  loadManualSet,
  type ManualSet,
  manualPages,
  verifyAnswers,
} from './lib/manual-set.js';
import { manualDir } from './lib/manuals.js';
import { mean, percentile } from './lib/metrics.js';
import { loadOffTopicSet, offTopicFiles, verifyOffTopicAnswers } from './lib/offtopic-set.js';
import { fixed, parseBenchArgs, writeResults } from './lib/results.js';
import { describeMachine, startEmbeddedService } from './lib/service-process.js';

const LANGUAGES = ['en', 'de', 'fr', 'es', 'ja', 'zh-cn'];
const { env, opts } = parseBenchArgs(process.argv.slice(2));
const label = opts.label ?? 'default';
const split = opts.split ?? 'all';
const KEY = `dsk_${randomBytes(16).toString('hex')}`;
const log = (s: string) => process.stdout.write(`${s}\n`);

interface Asked {
  set: string;
  id: string;
  split: string;
  answerable: boolean;
  questionLanguage: string;
  /** A top-5 passage matches the answer (answerable questions). */
  recalled: boolean;
  contains: boolean;
  declined: boolean;
  answer: string;
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-languages-'));
await chmod(dir, 0o755);
const svc = await startEmbeddedService(dir, KEY, env, (l) => log(`  [service] ${l}`));
const client = new ServiceClient(svc.url, svc.key);
const results: Asked[] = [];
const searchMs: number[] = [];
const chatMs: number[] = [];
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

async function ask(
  set: string,
  workspaceId: string,
  q: { id: string; q: string; split: string },
  pattern?: string,
  questionLanguage = 'en',
) {
  if (split !== 'all' && q.split !== split) return;
  const t0 = performance.now();
  const search = await client.search({ workspaceId, q: q.q, topK: 5 });
  const t1 = performance.now();
  const chat = await client.chat({ workspaceId, q: q.q });
  searchMs.push(t1 - t0);
  chatMs.push(performance.now() - t1);
  const re = pattern === undefined ? undefined : answerPattern(pattern);
  const declined = chat.kind === 'declined';
  results.push({
    set,
    id: q.id,
    split: q.split,
    answerable: re !== undefined,
    questionLanguage,
    recalled: !!re && (search.results as { text: string }[]).some((h) => re.test(comparableText(h.text))),
    contains: !!re && !declined && re.test(comparableText(chat.answer as string)),
    declined,
    answer: chat.answer as string,
  });
}

const pagesOf = (set: ManualSet, manual: Awaited<ReturnType<typeof manualDir>>): UploadFile[] =>
  manualPages(manual, set).map((p) => ({
    name: p.name,
    content: readFileSync(p.file, 'utf8'),
    type: 'text/html',
  }));

const versions: Record<string, string> = {};
try {
  for (const lang of LANGUAGES) {
    const set = loadManualSet(`debian-reference-${lang}`);
    const manual = await manualDir(set.package);
    versions[set.package] = manual.version;
    verifyAnswers(set, manualPages(manual, set));
    const ws = await workspace(set.name, pagesOf(set, manual));
    for (const q of set.answerable) await ask(set.name, ws, q, q.answer, set.language);
    for (const q of set.unanswerable) await ask(set.name, ws, q, undefined, set.language);
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
    for (const q of [...set.answerable, ...set.unanswerable])
      await ask(`${from} → ${to}`, manuals.get(to)!.ws, q);
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
    for (const q of offTopic.everyday) await ask(`everyday → ${w.id}`, ws, q, undefined, q.language);
    for (const q of offTopic.answerable.filter((x) => x.workspace === w.id))
      await ask(`answerable ${w.id}`, ws, q, q.answer, q.language);
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
function score(rs: Asked[]): Scores {
  const a = rs.filter((r) => r.answerable);
  const u = rs.filter((r) => !r.answerable);
  const share = (n: number, of: number) => (of ? n / of : Number.NaN);
  return {
    answerable: a.length,
    recall5: share(a.filter((r) => r.recalled).length, a.length),
    chatContains: share(a.filter((r) => r.contains).length, a.length),
    falseDeclines: share(a.filter((r) => r.declined).length, a.length),
    unanswerable: u.length,
    declined: share(u.filter((r) => r.declined).length, u.length),
  };
}

const splits = split === 'all' ? ['tune', 'holdout'] : [split];
const row = (name: string, s: string, sc: Scores) =>
  `| ${name} | ${s} | ${sc.answerable} | ${fixed(sc.recall5)} | ${fixed(sc.chatContains)} | ${fixed(sc.falseDeclines)} | ${sc.unanswerable} | ${fixed(sc.declined)} |`;
const header = [
  '| set | split | answerable | answer recall@5 | chat contains | false declines | unanswerable | declined |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
];
const sets = [...new Set(results.map((r) => r.set))];
const table: string[] = [...header];
const scores: Record<string, Record<string, Scores>> = {};
for (const set of sets) {
  for (const s of splits) {
    const rs = results.filter((r) => r.set === set && r.split === s);
    if (rs.length === 0) continue;
    const setScores = scores[set] ?? {};
    scores[set] = setScores;
    setScores[s] = score(rs);
    table.push(row(set, s, setScores[s]));
  }
}
// The issue's off-topic figure: every question asked of a workspace that does not answer it.
const offTopicRows = (s: string) =>
  results.filter(
    (r) => r.split === s && !r.answerable && (r.set.includes('→') || r.set.includes('everyday')),
  );
const summary = splits.map((s) => {
  const off = offTopicRows(s);
  const small = off.filter((r) => r.set.startsWith('everyday'));
  const large = off.filter((r) => !r.set.startsWith('everyday'));
  const crossLanguage = results.filter(
    (r) => r.split === s && r.set.startsWith('answerable') && r.questionLanguage !== 'en',
  );
  const declinedShare = (rs: Asked[]) => fixed(rs.filter((r) => r.declined).length / rs.length);
  return `- ${s}: off-topic declined ${declinedShare(off)} (small workspaces ${declinedShare(small)}, large ${declinedShare(large)}); the small workspaces' answerable questions asked in another language than their documents' (${crossLanguage.length}) declined ${declinedShare(crossLanguage)}.`;
});
log(`\n${table.join('\n')}\n${summary.join('\n')}`);

const machine = describeMachine();
const date = new Date().toISOString();
const md = [
  `# Languages and off-topic questions (${label})`,
  '',
  `${date}; ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}.`,
  'Every workspace uploaded over HTTP into one `docslurp serve` (embedded mode) and measured once its runs had',
  'completed and its index was folded; each question asked through `POST /v1/search` (topK 5) and',
  '`POST /v1/search/chat` (defaults; an answer of kind `declined` is a decline).',
  `Service environment: \`${JSON.stringify(env)}\`. Packages: ${Object.entries(versions)
    .map(([p, v]) => `${p} ${v}`)
    .join(', ')}.`,
  `Search p50 ${fixed(percentile(searchMs, 50), 1)} ms, chat p50 ${fixed(percentile(chatMs, 50), 1)} ms (mean ${fixed(mean(chatMs), 1)} ms).`,
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
  `wrote ${writeResults(`languages-${label}`, { benchmark: 'languages', label, date, machine, serviceEnv: env, ingest, scores, results }, md).join(', ')}`,
);
