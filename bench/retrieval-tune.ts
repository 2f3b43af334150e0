/**
 * Development aid behind the table of runs in docs/retrieval.md: builds a SciFact index once with the
 * service's own chunker and index adapter (no HTTP, no database), then scores search settings on it
 * in seconds. It scores SciFact's train claims (809, judged in qrels/train.tsv) unless told otherwise:
 * the benchmark of record, bench/retrieval.ts through the running service, reports the test claims,
 * so the settings it measures were not chosen on them.
 *
 * node bench/run.mjs retrieval-tune --dir /tmp/scifact-index [--split train|test] [--evidence 0,0.1] [--proximity 0,0.2]
 */
import { existsSync } from 'node:fs';
import { LanceSearchIndex } from '../packages/service/src/adapters/index/lancedb.js';
import type { IndexHit, IndexQuery } from '../packages/service/src/domain/ports.js';
import { checkQuestion } from '../packages/service/src/evaluation/metrics.js';
import { storedQuestion } from '../packages/service/src/evaluation/questions.js';
import { chunkText } from '../packages/service/src/processing/chunker.js';
import { indexRowsOf } from '../packages/service/src/search/indexing.js';
import { DEFAULT_SEARCH, searchWorkspace } from '../packages/service/src/search/search.js';
import { dataDir, loadSciFact, sciFactFile } from './lib/data.js';
import { mean } from './lib/metrics.js';
import { parseBenchArgs } from './lib/results.js';

const { opts } = parseBenchArgs(process.argv.slice(2));
const dir = opts.dir ?? '/tmp/scifact-index';
const ws = 'ws_scifact';
const split = opts.split === 'test' ? 'test' : 'train';
const { corpus, queries } = loadSciFact(dataDir(), split);

if (!existsSync(dir)) {
  const index = new LanceSearchIndex(dir);
  let n = 0;
  for (const doc of corpus) {
    const file = sciFactFile(doc);
    const chunks = chunkText(file.content, doc.id);
    const rows = indexRowsOf(
      { id: doc.id, filename: file.name, sourceUrl: null },
      { mediaType: 'text/markdown', title: null },
      chunks,
    );
    await index.replaceDocument(ws, doc.id, rows);
    if (++n % 250 === 0) {
      await index.optimize(ws);
      process.stdout.write(`${n} `);
    }
  }
  await index.optimize(ws);
  await index.close();
  process.stdout.write('built\n');
}

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
{
  const lance = new LanceSearchIndex(dir);
  // Lexical candidates depend only on the query: fetch them once.
  const cache = new Map<string, Promise<IndexHit[]>>();
  const index = Object.assign(Object.create(lance) as LanceSearchIndex, {
    search: (w: string, q: IndexQuery) => {
      const key = `${q.text}|${q.limit}`;
      if (!cache.has(key)) cache.set(key, lance.search(w, q));
      return cache.get(key)!.then((hits) => hits.map((h) => ({ ...h })));
    },
  });
  for (const evidence of (opts.evidence ?? String(DEFAULT_SEARCH.documentEvidence)).split(',').map(Number))
    for (const prox of (opts.proximity ?? String(DEFAULT_SEARCH.proximityWeight)).split(',').map(Number))
      for (const cov of (opts.coverage ?? String(DEFAULT_SEARCH.coverageWeight)).split(',').map(Number)) {
        const ndcg: number[] = [];
        const recall: number[] = [];
        for (const q of queries) {
          const hits = await searchWorkspace(
            {
              workspaces,
              documents,
              index,
              searchOptions: {
                ...DEFAULT_SEARCH,
                documentEvidence: evidence,
                proximityWeight: prox,
                coverageWeight: cov,
              },
            },
            principal,
            { workspaceId: ws, q: q.text, topK: 100, maxChunksPerDocument: 1 },
          );
          // Checked by the evaluation engine, as bench:retrieval is (documents here are named by corpus id).
          const checks = checkQuestion({
            question: storedQuestion({
              q: q.text,
              expected: [...q.judged].filter(([, g]) => g > 0).map(([document]) => ({ document })),
            }),
            retrieved: hits.map((h) => ({
              documentId: h.citation.documentId,
              filename: h.citation.filename,
              page: h.citation.page,
              text: h.text,
              score: h.score,
            })),
            searchMs: 0,
          });
          ndcg.push(checks.ndcgAt10 ?? 0);
          recall.push(checks.recallAt100 ?? 0);
        }
        process.stdout.write(
          `evidence ${evidence} proximity ${prox} coverage ${cov}: nDCG@10 ${mean(ndcg).toFixed(4)} R@100 ${mean(recall).toFixed(4)}\n`,
        );
      }
  await lance.close();
}
