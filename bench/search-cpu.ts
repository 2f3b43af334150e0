/**
 * Development aid for issue 25: CPU time per search (the whole process, LanceDB's threads included)
 * of the service's search operation against the index query under it, in-process, without HTTP or
 * the database, so that a loaded machine's wall clock does not blur the comparison. Runs on a SciFact
 * index as bench/retrieval-tune.ts builds it (give a copy: LanceDB may add columns to an old table),
 * with the load benchmark's questions (SciFact claims and SQuAD questions) from `--clients` loops.
 *
 * node bench/run.mjs search-cpu --dir /tmp/my-scifact-index [--searches 2000] [--clients 4] [--top-k 10]
 */
import * as lancedb from '@lancedb/lancedb';
import {
  fullTextQuery,
  LanceSearchIndex,
  SEARCH_COLUMNS,
} from '../packages/service/src/adapters/index/lancedb.js';
import { EldDetector } from '../packages/service/src/adapters/language/eld.js';
import { expandQuery } from '../packages/service/src/search/expansion.js';
import { Question } from '../packages/service/src/search/question.js';
import { searchPassages, searchWorkspace } from '../packages/service/src/search/search.js';
import { ENGLISH } from '../packages/service/src/text/language.js';
import { parseBenchArgs } from './lib/results.js';
import { loadTexts, queryCycle } from './load/corpus.js';

const { opts } = parseBenchArgs(process.argv.slice(2));
const dir = opts.dir;
if (!dir) throw new Error('--dir: a SciFact index (a copy, see above)');
const ws = 'ws_scifact';
const searches = Number(opts.searches ?? 2000);
const clients = Number(opts.clients ?? 4);
const topK = Number(opts['top-k'] ?? 10);
const limit = Math.max(60, topK * 2);
const queries = loadTexts().queries;

const principal = {
  accountId: 'a',
  scopes: new Set(['search'] as const),
  keyId: undefined,
  userId: undefined,
  role: undefined,
  actor: 'bench',
};
const index = new LanceSearchIndex(dir);
const deps = {
  workspaces: { searchContext: async () => ({ language: 'auto', languages: ['en'], visibility: undefined }) },
  documents: {
    liveDocuments: async (_w: string, ids: string[]) =>
      new Map(ids.map((id) => [id, { source: null, sourceItem: null, version: 1 }])),
  },
  index,
  languages: new EldDetector(),
};
const db = await lancedb.connect(dir, { readConsistencyInterval: 0 });
const table = await db.openTable(ws);

const runs: Record<string, (q: string) => Promise<unknown>> = {
  // What the adapter asks LanceDB, the result left as Arrow (the load benchmark's reference).
  'lance query (Arrow)': (q) =>
    table
      .query()
      .fullTextSearch(fullTextQuery(ENGLISH.indexTerms(q).join(' ') || 'x', expandQuery(q, ENGLISH)), {
        columns: ['terms'],
      })
      .select(SEARCH_COLUMNS)
      .limit(limit)
      .toArrow(),
  'adapter search': (q) =>
    index.search(ws, {
      text: q,
      terms: ENGLISH.indexTerms(q).join(' '),
      limit,
      expansions: expandQuery(q, ENGLISH),
    }),
  'searchPassages (no snippets)': (q) => searchPassages(deps, principal, { workspaceId: ws, q, topK }),
  'searchWorkspace (language given)': (q) =>
    searchWorkspace(deps, principal, { workspaceId: ws, q, topK, question: new Question(q) }),
  searchWorkspace: (q) => searchWorkspace(deps, principal, { workspaceId: ws, q, topK }),
};

const only = opts.only?.split(',');
for (const [name, run] of Object.entries(runs)) {
  if (only && !only.some((o) => name.includes(o))) continue;
  const warm = queryCycle(queries, 9);
  for (let i = 0; i < 100; i++) await run(warm());
  const next = queryCycle(queries);
  let left = searches;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (left-- > 0) await run(next());
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const ms = performance.now() - t0;
  process.stdout.write(
    `${name.padEnd(34)} CPU ${((cpu.user + cpu.system) / 1000 / searches).toFixed(2)} ms/search (user ${(cpu.user / 1000 / searches).toFixed(2)}), wall ${(ms / searches).toFixed(2)} ms/search\n`,
  );
}
table.close();
db.close();
await index.close();
