/**
 * Development aid for issue 16's levers, behind docs/decisions/0009: builds a manual's index once with
 * the service's parser, chunker and index adapter in this process (no HTTP, no database, no sandbox),
 * then asks the questions of one split through `searchWorkspace` and the extractive answerer in
 * seconds. The benchmark of record is bench/manual.ts, through the running service. Only the tune split
 * is used for tuning; `--split holdout` exists for the final report and is never iterated on.
 *
 * node bench/run.mjs manual-tune [--manual debian-handbook] [--split tune] [--rebuild]
 *   [--show fails|why|ok|misses|undeclined] [--option name=value,…] [--debug ID]
 *
 * --show why: each miss whose passages hold the answer, the quote chosen and the one holding it, and
 * the misses counted by what that quote lacked (bench/lib/why-missed.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { LanceSearchIndex } from '../packages/service/src/adapters/index/lancedb.js';
import { loadWordNetLexicon } from '../packages/service/src/adapters/lexicon/wordnet.js';
import {
  countedTermOf,
  wordsAbsentFromWorkspace,
  wordsToLookUp,
} from '../packages/service/src/answers/absent.js';
import {
  composeExtractiveAnswer,
  DEFAULT_EXTRACTIVE,
  NOT_FOUND_ANSWER,
  rankQuotes,
} from '../packages/service/src/answers/extractive.js';
import type { SearchHit } from '../packages/service/src/domain/types.js';
import { parseBytes } from '../packages/service/src/parsing/parse.js';
import { chunkText } from '../packages/service/src/processing/chunker.js';
import { indexRowsOf } from '../packages/service/src/search/indexing.js';
import { Question } from '../packages/service/src/search/question.js';
import { searchWorkspace } from '../packages/service/src/search/search.js';
import { repoRoot } from './lib/data.js';
import { answerPattern, loadManualSet, manualPages } from './lib/manual-set.js';
import { manualDir } from './lib/manuals.js';
import { parseBenchArgs } from './lib/results.js';
import { formatQuote, type Why, whyMissed } from './lib/why-missed.js';

const argv = process.argv.slice(2);
const { opts } = parseBenchArgs(argv.filter((a) => a !== '--rebuild'));
const manualName = opts.manual ?? 'debian-handbook';
const split = opts.split ?? 'tune';
const set = loadManualSet(manualName);
const manual = await manualDir(set.package);
const dir = path.join(repoRoot, 'node_modules/.cache/docslurp-manual-tune', manualName);
const ws = 'ws_manual';

if (argv.includes('--rebuild') || !existsSync(dir)) {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const index = new LanceSearchIndex(dir);
  const t0 = performance.now();
  let n = 0;
  for (const page of manualPages(manual, set)) {
    const parsed = await parseBytes(readFileSync(page.file), page.name, 'text/html');
    const id = `doc_${n++}`;
    const rows = indexRowsOf(
      { id, filename: page.name, sourceUrl: null },
      parsed,
      chunkText(parsed.text, id),
    );
    await index.replaceDocument(ws, id, rows);
  }
  await index.optimize(ws);
  await index.close();
  process.stdout.write(`indexed ${n} pages in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}

const lexicon = await loadWordNetLexicon();
const index = new LanceSearchIndex(dir);
const principal = {
  accountId: 'a',
  scopes: new Set(['search'] as const),
  keyId: undefined,
  userId: undefined,
  role: undefined,
  actor: 'bench',
};
const workspaces = {
  searchContext: async () => ({ language: 'auto', languages: ['en'], visibility: undefined }),
};
const documents = {
  liveDocuments: async (_w: string, ids: string[]) =>
    new Map(ids.map((id) => [id, { source: null, sourceItem: null, version: 1 }])),
};
const search = (q: string, topK: number, maxChunksPerDocument?: number) =>
  searchWorkspace({ workspaces, documents, index }, principal, {
    workspaceId: ws,
    q,
    topK,
    maxChunksPerDocument,
  });

// What the service's answerer consults: the lexicon, and the index for the question's words no passage uses.
const aidsFor = async (q: string, hits: SearchHit[]) => {
  const lookUp = wordsToLookUp(q, hits, lexicon);
  // Only whether any row holds each word counts here: a cap of one.
  const counted = await index.termCounts(ws, lookUp.map(countedTermOf), 1);
  return { absentFromWorkspace: wordsAbsentFromWorkspace(counted.rows, lookUp, counted.counts) };
};

// --option name=value overrides one of the answerer's options (DEFAULT_EXTRACTIVE).
const answerOptions = { ...DEFAULT_EXTRACTIVE };
for (const o of (opts.option ?? '').split(',').filter(Boolean)) {
  const [k, v] = o.split('=');
  (answerOptions as Record<string, number>)[k!] = Number(v);
}
const answerable = set.answerable.filter((q) => split === 'all' || q.split === split);
const unanswerable = set.unanswerable.filter((q) => split === 'all' || q.split === split);
let recall = 0;
let pageHit = 0;
let contains = 0;
let falseDeclines = 0;
// Rank of the first passage the answerer gets that holds the answer: 1, 2, 3, 4 or later.
const chatRank = [0, 0, 0, 0];
const fails: string[] = [];
// --show why: the misses whose answer the passages hold, by what the quote holding it lacks.
const whyCounts = new Map<Why, number>();
for (const q of answerable) {
  const pattern = answerPattern(q.answer);
  const top = await search(q.q, 5);
  const rank = top.findIndex((h) => pattern.test(h.text));
  if (rank >= 0) recall++;
  if (top.some((h) => h.citation.filename === q.page)) pageHit++;
  const hits = await search(q.q, 8, 3);
  const firstWith = hits.findIndex((h) => pattern.test(h.text));
  if (firstWith >= 0) chatRank[Math.min(firstWith, 3)]!++;
  const a = composeExtractiveAnswer(
    new Question(q.q, { lexicon }),
    hits,
    answerOptions,
    await aidsFor(q.q, hits),
  );
  const ok = pattern.test(a.answer);
  if (ok) contains++;
  if (opts.show === 'ok' && ok) fails.push(`OK ${q.id}`);
  if (opts.show === 'why' && !ok && firstWith >= 0) {
    const question = new Question(q.q);
    const { type, quotes } = rankQuotes(question, hits, answerOptions);
    const at = quotes.findIndex((x) => pattern.test(x.text));
    const why = whyMissed(hits, quotes, q.answer);
    whyCounts.set(why, (whyCounts.get(why) ?? 0) + 1);
    fails.push(
      `${q.id} ${q.kind}/${type} | ${q.q} => ${q.answer}\n    chosen ${formatQuote(quotes[0]!)}\n    answer #${at + 1} ${at >= 0 ? formatQuote(quotes[at]!) : '(no quote holds it)'}`,
    );
  }
  if (a.answer === NOT_FOUND_ANSWER) falseDeclines++;
  if (opts.show === 'fails' && !ok)
    fails.push(
      `${q.id} ${q.kind} rank ${rank < 0 ? '-' : rank + 1} | ${q.q} => ${q.answer}\n    ${a.answer.slice(0, 300)}`,
    );
  if (opts.show === 'misses' && rank < 0)
    fails.push(
      `${q.id} ${q.kind} ${top.some((h) => h.citation.filename === q.page) ? 'page' : 'NOPAGE'} | ${q.q} => ${q.answer} @ ${q.page}\n    ${top.map((h) => h.citation.filename).join(', ')}`,
    );
}
// --debug <id>: the passages the answerer gets for one question, as it gets them.
if (opts.debug) {
  const q = [...set.answerable, ...set.unanswerable].find((x) => x.id === opts.debug)!;
  for (const [i, h] of (await search(q.q, 8, 3)).entries())
    process.stdout.write(`--- [${i + 1}] ${h.citation.filename} score ${h.score.toFixed(3)}\n${h.text}\n`);
}
let declined = 0;
for (const q of unanswerable) {
  const hits = await search(q.q, 8, 3);
  const a = composeExtractiveAnswer(
    new Question(q.q, { lexicon }),
    hits,
    answerOptions,
    await aidsFor(q.q, hits),
  );
  if (a.answer === NOT_FOUND_ANSWER) declined++;
  else if (opts.show === 'undeclined') fails.push(`${q.id} | ${q.q}\n    ${a.answer.slice(0, 300)}`);
}
await index.close();
process.stdout.write(`answer first in the answerer's passage 1/2/3/4+: ${chatRank.join('/')}\n`);
const f = (x: number, n: number) => (n ? (x / n).toFixed(3) : '-');
process.stdout.write(`${fails.join('\n')}\n`);
if (opts.show === 'why')
  process.stdout.write(
    `misses whose passages hold the answer, by what the quote holding the answer lacked: ${[...whyCounts].map(([k, n]) => `${k} ${n}`).join(', ')}\n`,
  );
process.stdout.write(
  `${manualName} ${split}: recall@5 ${f(recall, answerable.length)}, page hit@5 ${f(pageHit, answerable.length)}, chat contains ${f(contains, answerable.length)}, false declines ${falseDeclines}, unanswerable declined ${declined}/${unanswerable.length}\n`,
);
