import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDir, loadSciFact, sample, sciFactFile } from '../../../../bench/lib/data.js';
import { ServiceClient } from '../../../../bench/lib/driver.js';
import {
  evaluateThroughService,
  metricValue,
  sciFactConfiguration,
  sciFactQuestions,
} from '../../../../bench/lib/engine.js';
import { waitForIndexed } from '../../../../bench/lib/index-state.js';
import { startTestService, type TestService } from '../support/service.js';
import { missingBenchData, skipWithout } from '../support/tools.js';

const noData = skipWithout(missingBenchData(), 'retrieval quality on BEIR SciFact');

/**
 * The SciFact benchmark in small (60 test claims, their abstracts and 400 others, through the real
 * upload → worker → search path, scored by an evaluation as the benchmark is), so that a drop in
 * retrieval quality fails CI. The search settings
 * are chosen on the train claims (bench/retrieval-tune.ts), so these test claims are held out. Floors
 * sit below the values measured on this subset (nDCG@10 0.861, Recall@100 0.967; about one claim of
 * 60 moving in the top 10), and timing is never asserted here.
 */
const QUERIES = 60;
const DISTRACTORS = 400;

let svc: TestService;
let key: string;
let workspaceId: string;
let queries: ReturnType<typeof loadSciFact>['queries'];

beforeAll(async () => {
  if (noData) return;
  const data = loadSciFact(dataDir());
  queries = sample(data.queries, QUERIES, 7);
  const relevant = new Set(queries.flatMap((q) => [...q.judged.keys()]));
  const others = data.corpus.filter((d) => !relevant.has(d.id));
  const corpus = [...data.corpus.filter((d) => relevant.has(d.id)), ...sample(others, DISTRACTORS, 11)];
  svc = await startTestService({ env: { WORKER_DOC_CONCURRENCY: '2' } });
  key = await svc.key();
  ({ workspaceId } = await new ServiceClient(svc.url, key).ingest(corpus.map(sciFactFile), {
    batch: 500,
    timeoutMs: 15 * 60_000,
  }));
  // Every run measures the same index: the one the worker's maintenance leaves once it has caught up.
  const state = await waitForIndexed(path.join(svc.dataDir, 'index'), workspaceId, 5 * 60_000);
  if (state.unindexed > 0) throw new Error(`${state.unindexed} rows still outside the BM25 index`);
}, 20 * 60_000);
afterAll(() => svc?.close());

describe.skipIf(noData)('SciFact subset through the service', () => {
  it('keeps nDCG@10 and Recall@100 above their floors', async () => {
    const { evaluation, outcomes } = await evaluateThroughService(
      { url: svc.url, key },
      workspaceId,
      'SciFact subset',
      sciFactQuestions(queries),
      [sciFactConfiguration()],
    );
    const ndcg10 = metricValue(evaluation, 'ndcgAt10');
    const recall100 = metricValue(evaluation, 'recallAt100');
    console.info(`SciFact subset: nDCG@10 ${ndcg10.toFixed(3)}, Recall@100 ${recall100.toFixed(3)}`);
    expect(outcomes).toHaveLength(QUERIES);
    expect(ndcg10).toBeGreaterThanOrEqual(0.84);
    expect(recall100).toBeGreaterThanOrEqual(0.95);
  }, 300_000);
});
