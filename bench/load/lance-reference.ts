/**
 * The search reference, run as its own Node process like the service: the full-text query the
 * service's LanceDB adapter runs for a question read in English (BM25 on the `terms` column, or
 * `search_text` in a table made before languages, with the same terms, expansions, candidate count
 * and columns), straight on the workspace's table, from `clients` concurrent loops for
 * `seconds`; the result stays an Arrow table (no JavaScript objects are made of it). Prints one JSON
 * line with every latency in ms. Usage: tsx bench/load/lance-reference.ts '<json options>'
 */
import * as lancedb from '@lancedb/lancedb';
import { fullTextQuery, SEARCH_COLUMNS } from '../../packages/service/src/adapters/index/lancedb.js';
import { expandQuery } from '../../packages/service/src/search/expansion.js';
import { ENGLISH } from '../../packages/service/src/text/language.js';
import { loadTexts, queryCycle } from './corpus.js';

const { indexUri, table, clients, seconds, limit, warmup } = JSON.parse(process.argv[2]!) as {
  indexUri: string;
  table: string;
  clients: number;
  seconds: number;
  limit: number;
  warmup: number;
};

// The same consistency the service asks for: every read checks for the latest version of the table.
const db = await lancedb.connect(indexUri, { readConsistencyInterval: 0 });
const t = await db.openTable(table);
const next = queryCycle(loadTexts().queries);
const legacy = !(await t.schema()).fields.some((f) => f.name === 'terms');
const column = legacy ? 'search_text' : 'terms';
const columns = legacy ? SEARCH_COLUMNS.filter((c) => c !== 'language') : SEARCH_COLUMNS;
const search = (q: string) =>
  t
    .query()
    .fullTextSearch(legacy ? q : fullTextQuery(ENGLISH.indexTerms(q).join(' '), expandQuery(q, ENGLISH)), {
      columns: [column],
    })
    .select(columns)
    .limit(limit)
    .toArrow();

for (let i = 0; i < warmup; i++) await search(next());

const latencies: number[] = [];
let errors = 0;
const end = performance.now() + seconds * 1000;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await Promise.all(
  Array.from({ length: clients }, async () => {
    while (performance.now() < end) {
      const s = performance.now();
      try {
        await search(next());
        latencies.push(performance.now() - s);
      } catch {
        errors++;
      }
    }
  }),
);
const elapsedMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
t.close();
db.close();
process.stdout.write(
  `${JSON.stringify({ latencies, errors, elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`,
);
