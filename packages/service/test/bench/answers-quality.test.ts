import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDir, loadSquad, sample, squadFile } from '../../../../bench/lib/data.js';
import { ServiceClient } from '../../../../bench/lib/driver.js';
import {
  evaluateThroughService,
  metricValue,
  SQUAD_CONFIGURATION,
  squadQuestions,
} from '../../../../bench/lib/engine.js';
import { waitForIndexed } from '../../../../bench/lib/index-state.js';
import { startTestService, type TestService } from '../support/service.js';
import { missingBenchData, skipWithout } from '../support/tools.js';

const noData = skipWithout(missingBenchData(), 'answer quality on SQuAD');

/**
 * The SQuAD answer benchmark in small (the paragraphs of five held-out articles, 80 of their
 * questions), with floors below the values measured on this subset (docs/retrieval.md). Only held-out
 * articles: the answerer's settings were chosen on the others (bench/lib/data.ts), so a floor here says
 * how it does on questions it was not fitted to.
 */
const ARTICLES = 5;
const QUESTIONS = 80;

let svc: TestService;
let key: string;
let workspaceId: string;
let questions: ReturnType<typeof loadSquad>['questions'];
let elsewhere: ReturnType<typeof loadSquad>['questions'];

beforeAll(async () => {
  if (noData) return;
  const data = loadSquad(dataDir());
  const heldOut = data.paragraphs.filter((p) => p.split === 'holdout');
  const articles = [...new Set(heldOut.map((p) => p.article))].slice(0, ARTICLES);
  const paragraphs = heldOut.filter((p) => articles.includes(p.article));
  const ids = new Set(paragraphs.map((p) => p.id));
  questions = sample(
    data.questions.filter((q) => ids.has(q.paragraphId)),
    QUESTIONS,
    20240611,
  );
  // Questions about articles that are not in the workspace: the answerer should decline them.
  elsewhere = sample(
    data.questions.filter((q) => q.split === 'holdout' && !ids.has(q.paragraphId)),
    40,
    5,
  );
  svc = await startTestService({ env: { WORKER_DOC_CONCURRENCY: '2' } });
  key = await svc.key();
  ({ workspaceId } = await new ServiceClient(svc.url, key).ingest(paragraphs.map(squadFile), {
    batch: 500,
    timeoutMs: 15 * 60_000,
  }));
  // Every run measures the same index: the one the worker's maintenance leaves once it has caught up.
  const state = await waitForIndexed(path.join(svc.dataDir, 'index'), workspaceId, 5 * 60_000);
  if (state.unindexed > 0) throw new Error(`${state.unindexed} rows still outside the BM25 index`);
}, 20 * 60_000);
afterAll(() => svc?.close());

describe.skipIf(noData)('SQuAD subset through the service', () => {
  it('answers with the gold answer, cites the gold paragraph, and every marker resolves', async () => {
    const { evaluation, outcomes } = await evaluateThroughService(
      { url: svc.url, key },
      workspaceId,
      'SQuAD subset',
      squadQuestions(questions),
      [SQUAD_CONFIGURATION],
    );
    const containsGold = metricValue(evaluation, 'chatContains');
    const citesGold = metricValue(evaluation, 'citedExpected');
    const markersResolve = metricValue(evaluation, 'markersResolve');
    console.info(
      `SQuAD subset: contains gold ${containsGold.toFixed(3)}, cites gold ${citesGold.toFixed(3)}, markers resolve ${markersResolve.toFixed(3)}`,
    );
    expect(outcomes).toHaveLength(QUESTIONS);
    expect(markersResolve).toBe(1);
    // Measured on these held-out questions (issue 27): contains gold 67/80, cites gold 71/80. The
    // floors leave three questions of room for a run on another machine.
    expect(containsGold).toBeGreaterThanOrEqual(64 / 80);
    expect(citesGold).toBeGreaterThanOrEqual(68 / 80);
  }, 300_000);

  it('declines most questions about articles that are not in the workspace', async () => {
    const { evaluation, outcomes } = await evaluateThroughService(
      { url: svc.url, key },
      workspaceId,
      'SQuAD questions about other articles',
      squadQuestions(elsewhere, { unanswerable: true }),
      [SQUAD_CONFIGURATION],
    );
    const declined = metricValue(evaluation, 'unanswerableDeclined');
    console.info(
      `SQuAD questions about other articles: declined ${declined.toFixed(3)} of ${outcomes.length}`,
    );
    expect(outcomes).toHaveLength(40);
    // 25 of 40 in the last runs (23 before the split), with the index complete: the floor guards the decline
    // rule itself; raising the rate is the answerer's work, not this test's.
    expect(declined).toBeGreaterThanOrEqual(0.5);
  }, 300_000);
});
