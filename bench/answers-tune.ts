/**
 * Development aid behind the answer rows of docs/retrieval.md: builds a SQuAD paragraph index once
 * with the service's chunker and index adapter (no HTTP, no database), caches each sampled question's
 * passages, then scores the extractive answerer on them in seconds. The benchmark of record is
 * bench/answers.ts, through the running service. It asks only the tuning articles' questions, so
 * what the benchmark of record reports was never tuned on.
 *
 * node bench/run.mjs answers-tune --dir /tmp/squad-index [--questions 400]
 */
import { existsSync } from 'node:fs';
import { LanceSearchIndex } from '../packages/service/src/adapters/index/lancedb.js';
import { loadWordNetLexicon } from '../packages/service/src/adapters/lexicon/wordnet.js';
import {
  countedTermOf,
  wordsAbsentFromWorkspace,
  wordsToLookUp,
} from '../packages/service/src/answers/absent.js';
import { composeExtractiveAnswer, DEFAULT_EXTRACTIVE } from '../packages/service/src/answers/extractive.js';
import { checkQuestion } from '../packages/service/src/evaluation/metrics.js';
import { storedQuestion } from '../packages/service/src/evaluation/questions.js';
import { chunkText } from '../packages/service/src/processing/chunker.js';
import { indexRowsOf } from '../packages/service/src/search/indexing.js';
import { Question } from '../packages/service/src/search/question.js';
import { searchWorkspace } from '../packages/service/src/search/search.js';
import { dataDir, loadSquad, sample, squadFile } from './lib/data.js';
import { parseBenchArgs } from './lib/results.js';

const argv = process.argv.slice(2);
const { opts } = parseBenchArgs(argv.filter((a) => a !== '--no-lexicon'));
const dir = opts.dir ?? '/tmp/squad-index';
const ws = 'ws_squad';
const { paragraphs, questions } = loadSquad(dataDir());
const asked = sample(
  questions.filter((q) => q.split === 'tune'),
  Number(opts.questions ?? 400),
  20240611,
);

if (!existsSync(dir)) {
  const index = new LanceSearchIndex(dir);
  let n = 0;
  for (const p of paragraphs) {
    const file = squadFile(p);
    const id = `doc_${p.id.replace('-', '_')}`;
    const rows = indexRowsOf(
      { id, filename: file.name, sourceUrl: null },
      { mediaType: 'text/markdown', title: null },
      chunkText(file.content, id),
    );
    await index.replaceDocument(ws, id, rows);
    if (++n % 250 === 0) await index.optimize(ws);
  }
  await index.optimize(ws);
  await index.close();
}

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
// The answerer consults the English lexicon as the service does (--no-lexicon leaves it out), and the
// index for the question's words no passage uses.
const lexicon = argv.includes('--no-lexicon') ? undefined : await loadWordNetLexicon();
const cases = [];
for (const q of asked) {
  const hits = await searchWorkspace({ workspaces, documents, index }, principal, {
    workspaceId: ws,
    q: q.question,
    topK: 8,
    maxChunksPerDocument: 3,
  });
  const lookUp = lexicon ? wordsToLookUp(q.question, hits, lexicon) : [];
  // Only whether any row holds each word counts here: a cap of one.
  const counted = await index.termCounts(ws, lookUp.map(countedTermOf), 1);
  cases.push({
    q,
    hits,
    absentFromWorkspace: wordsAbsentFromWorkspace(counted.rows, lookUp, counted.counts),
  });
}
await index.close();
const top1 = cases.filter((c) => c.hits[0]?.citation.filename === `squad-${c.q.paragraphId}.md`).length;
const top3 = cases.filter((c) =>
  c.hits.slice(0, 3).some((h) => h.citation.filename === `squad-${c.q.paragraphId}.md`),
).length;
process.stdout.write(
  `retrieval: gold paragraph first ${(top1 / cases.length).toFixed(3)}, in top 3 ${(top3 / cases.length).toFixed(3)}\n`,
);
// --options "a=1,b=2;a=3": answerer option sets (DEFAULT_EXTRACTIVE overridden) scored one after another.
const optionSets = (opts.options ?? '').split(';').map((set) => {
  const o = { ...DEFAULT_EXTRACTIVE };
  for (const kv of set.split(',').filter(Boolean)) {
    const [k, v] = kv.split('=');
    (o as Record<string, number>)[k!] = Number(v);
  }
  return { label: set || 'defaults', options: o };
});
for (const { label, options } of optionSets) {
  let gold = 0;
  let cited = 0;
  let bad = 0;
  let declined = 0;
  let length = 0;
  for (const { q, hits, absentFromWorkspace } of cases) {
    const a = composeExtractiveAnswer(new Question(q.question, { lexicon }), hits, options, {
      absentFromWorkspace,
    });
    // Checked by the evaluation engine, as bench:answers is (gold compared SQuAD's way).
    const checks = checkQuestion({
      question: storedQuestion({
        q: q.question,
        answers: q.answers,
        match: 'squad',
        expected: [{ document: `squad-${q.paragraphId}.md` }],
      }),
      retrieved: [],
      searchMs: 0,
      answer: { text: a.answer, declined: a.kind === 'declined', citations: a.citations },
    });
    gold += checks.chatContains ?? 0;
    cited += checks.citedExpected ?? 0;
    if (checks.markersResolve === 0) bad++;
    if (a.citations.length === 0) declined++;
    if (process.env.SHOW_DECLINED && a.citations.length === 0)
      console.log(
        'DECLINED',
        q.question,
        [...cases.find((c) => c.q === q)!.absentFromWorkspace].join(' '),
        '| gold in hits:',
        hits.some((h) => h.citation.filename === `squad-${q.paragraphId}.md`),
      );
    length += a.answer.length;
  }
  const n = cases.length;
  process.stdout.write(
    `${label}: contains gold ${(gold / n).toFixed(3)}, cites gold ${(cited / n).toFixed(3)}, answers with unresolved markers ${bad}, declined ${declined}, mean length ${Math.round(length / n)}\n`,
  );
}
