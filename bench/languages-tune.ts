/**
 * Development aid for issue 24 (languages and declines), behind docs/decisions/0013: builds a
 * manual's index once in this process with the service's parser, language detection, chunker and
 * index adapter (no HTTP, no database, no sandbox), then asks the questions of one split through the
 * service's answer operation (question language, search, extractive answerer) in seconds. The
 * benchmark of record is bench/languages.ts, through the running service. Only the tune split is
 * used for tuning; `--split holdout` is for the final report and is never iterated on.
 *
 * node bench/run.mjs languages-tune [--manual debian-reference-de] [--split tune] [--rebuild]
 *   [--show fails|undeclined|misses] [--features FILE]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { LanceSearchIndex } from '../packages/service/src/adapters/index/lancedb.js';
import { EldDetector } from '../packages/service/src/adapters/language/eld.js';
import { loadWordNetLexicon } from '../packages/service/src/adapters/lexicon/wordnet.js';
import { answerQuestion } from '../packages/service/src/answers/answer.js';
import { DEFAULT_EXTRACTIVE, rankQuotes } from '../packages/service/src/answers/extractive.js';
import { parseBytes } from '../packages/service/src/parsing/parse.js';
import { chunkText } from '../packages/service/src/processing/chunker.js';
import { indexRowsOf } from '../packages/service/src/search/indexing.js';
import { searchWorkspace } from '../packages/service/src/search/search.js';
import { documentLanguage, questionLanguage } from '../packages/service/src/text/detection.js';
import { repoRoot } from './lib/data.js';
import { comparableText } from './lib/manual-eval.js';
import { answerPattern, loadManualSet, manualPages } from './lib/manual-set.js';
import { manualDir } from './lib/manuals.js';
import { parseBenchArgs } from './lib/results.js';

const argv = process.argv.slice(2);
const { opts } = parseBenchArgs(argv.filter((a) => a !== '--rebuild'));
const manualName = opts.manual ?? 'debian-reference-de';
const split = opts.split ?? 'tune';
const set = loadManualSet(manualName);
const manual = await manualDir(set.package);
const dir = path.join(repoRoot, 'node_modules/.cache/docslurp-languages-tune', manualName);
const ws = 'ws_manual';
const detector = new EldDetector();

if (argv.includes('--rebuild') || !existsSync(path.join(dir, 'languages.json'))) {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const index = new LanceSearchIndex(dir);
  const t0 = performance.now();
  const languages = new Set<string>();
  let n = 0;
  for (const page of manualPages(manual, set)) {
    const parsed = await parseBytes(readFileSync(page.file), page.name, 'text/html');
    const id = `doc_${n++}`;
    const language = await documentLanguage(parsed.text, 'auto', detector);
    languages.add(language.code);
    const rows = indexRowsOf(
      { id, filename: page.name, sourceUrl: null },
      parsed,
      chunkText(parsed.text, id, language),
      language,
    );
    await index.replaceDocument(ws, id, rows);
  }
  await index.optimize(ws);
  await index.close();
  writeFileSync(path.join(dir, 'languages.json'), JSON.stringify([...languages]));
  process.stdout.write(
    `indexed ${n} pages (${[...languages].join(', ')}) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
}

const languages = JSON.parse(readFileSync(path.join(dir, 'languages.json'), 'utf8')) as string[];
const lexicon = await loadWordNetLexicon();
const index = new LanceSearchIndex(dir);
const principal = {
  accountId: 'a',
  scopes: new Set(['search'] as const),
  keyId: undefined,
  userId: undefined,
};
const deps = {
  workspaces: { searchContext: async () => ({ language: 'auto', languages }) },
  documents: {
    liveDocuments: async (_w: string, ids: string[]) =>
      new Map(ids.map((id) => [id, { source: null, sourceItem: null, version: 1 }])),
  },
  index,
  lexicon,
  languages: detector,
};
const search = (q: string) => searchWorkspace(deps, principal, { workspaceId: ws, q, topK: 5 });
const ask = (q: string) => answerQuestion(deps, principal, { workspaceId: ws, q, topK: 8 });

const answerable = set.answerable.filter((q) => split === 'all' || q.split === split);
const unanswerable = set.unanswerable.filter((q) => split === 'all' || q.split === split);
let recall = 0;
let contains = 0;
let falseDeclines = 0;
const lines: string[] = [];
for (const q of answerable) {
  const pattern = answerPattern(q.answer);
  const top = await search(q.q);
  const rank = top.findIndex((h) => pattern.test(comparableText(h.text)));
  if (rank >= 0) recall++;
  const a = await ask(q.q);
  const ok = a.kind !== 'declined' && pattern.test(comparableText(a.answer));
  if (ok) contains++;
  if (a.kind === 'declined') falseDeclines++;
  if (opts.show === 'fails' && !ok)
    lines.push(
      `${q.id} ${q.kind} rank ${rank < 0 ? '-' : rank + 1} | ${q.q} => ${q.answer} @ ${q.page}\n    ${a.kind}: ${a.answer.slice(0, 240)}`,
    );
  if (opts.show === 'misses' && rank < 0)
    lines.push(
      `${q.id} ${q.kind} | ${q.q} => ${q.answer} @ ${q.page}\n    ${top.map((h) => h.citation.filename).join(', ')}`,
    );
}
let declined = 0;
for (const q of unanswerable) {
  const a = await ask(q.q);
  if (a.kind === 'declined') declined++;
  else if (opts.show === 'undeclined') lines.push(`${q.id} | ${q.q}\n    ${a.answer.slice(0, 240)}`);
}
// --debug <id>: the answerer's passages and its best quotes for one question, as it gets them.
if (opts.debug) {
  const q = [...set.answerable, ...set.unanswerable].find((x) => x.id === opts.debug)!;
  const language = await questionLanguage(q.q, await deps.workspaces.searchContext(), detector);
  const hits = await searchWorkspace(deps, principal, {
    workspaceId: ws,
    q: q.q,
    topK: 8,
    maxChunksPerDocument: 3,
    language,
  });
  process.stdout.write(`question language ${language.code}\n`);
  for (const [i, h] of hits.entries())
    process.stdout.write(
      `--- [${i + 1}] ${h.citation.filename} ${h.language} score ${h.score.toFixed(3)}\n${h.text.slice(0, 400)}\n`,
    );
  const { type, quotes } = rankQuotes(q.q, hits, DEFAULT_EXTRACTIVE, language);
  process.stdout.write(`type ${type}\n`);
  for (const x of quotes.slice(0, 6))
    process.stdout.write(
      `[p${x.hitIndex + 1} s${x.score.toFixed(2)} c${x.coverage.toFixed(2)}${x.typed ? ' T' : ''}] ${x.text.slice(0, 200)}\n`,
    );
}
await index.close();
const f = (x: number, n: number) => (n ? (x / n).toFixed(3) : '-');
process.stdout.write(`${lines.join('\n')}\n`);
process.stdout.write(
  `${manualName} ${split}: recall@5 ${f(recall, answerable.length)}, chat contains ${f(contains, answerable.length)}, false declines ${falseDeclines}/${answerable.length}, unanswerable declined ${declined}/${unanswerable.length}\n`,
);
