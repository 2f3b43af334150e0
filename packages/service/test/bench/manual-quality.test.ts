import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sample } from '../../../../bench/lib/data.js';
import { ServiceClient } from '../../../../bench/lib/driver.js';
import { evaluateThroughService } from '../../../../bench/lib/engine.js';
import { waitForIndexed } from '../../../../bench/lib/index-state.js';
import { extractedAnswers, manualQuestions, manualScores, TOP_K } from '../../../../bench/lib/manual-eval.js';
import {
  type AnswerableQuestion,
  loadManualSet,
  type ManualPage,
  type ManualSet,
  manualPages,
  type UnanswerableQuestion,
  verifyAnswers,
} from '../../../../bench/lib/manual-set.js';
import { manualDir } from '../../../../bench/lib/manuals.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * The manual-questions benchmark (npm run bench:manual, issue 16) in small: the Debian Administrator's
 * Handbook pages that answer 30 of its held-out questions (never used to choose a setting) plus 20 other pages as
 * distractors, uploaded as HTML through the real upload → sandboxed parser → worker → search path,
 * then those 30 questions and 15 it cannot answer asked through search and chat by an evaluation,
 * which scores them as the benchmark does. The package comes
 * from Debian (apt-get download, through bench/lib/manuals.ts); without it this test fails, it is
 * never skipped. Floors sit a little below what the current code measures on this subset; they are
 * a regression floor, to be raised as the answers improve.
 */
const QUESTIONS = 30;
const DISTRACTORS = 20;
const UNANSWERABLE = 15;

let set: ManualSet;
let pages: ManualPage[];
let svc: TestService;
let key: string;
let client: ServiceClient;
let workspaceId: string;
let questions: AnswerableQuestion[];
let unanswerable: UnanswerableQuestion[];

/**
 * Without the manual there is nothing to measure: the error (which says how to get it) is kept and
 * thrown by each test, so that they are reported failed rather than skipped.
 */
let setupError: unknown;
const ready = () => {
  if (setupError) throw setupError;
};

beforeAll(async () => {
  try {
    await setup();
  } catch (err) {
    setupError = err;
  }
}, 10 * 60_000);
afterAll(() => svc?.close());

async function setup() {
  set = loadManualSet('debian-handbook');
  // Throws, with what to do, when the package can be had neither from MANUALS_DIR nor from Debian.
  const manual = await manualDir(set.package);
  pages = manualPages(manual, set);
  questions = sample(
    set.answerable.filter((q) => q.split === 'holdout'),
    QUESTIONS,
    16,
  );
  unanswerable = sample(
    set.unanswerable.filter((q) => q.split === 'holdout'),
    UNANSWERABLE,
    16,
  );
  const answering = new Set(questions.map((q) => q.page));
  const others = sample(
    pages.filter((p) => !answering.has(p.name)),
    DISTRACTORS,
    17,
  );
  const uploaded = [...pages.filter((p) => answering.has(p.name)), ...others];
  svc = await startTestService({ env: { WORKER_DOC_CONCURRENCY: '2' } });
  key = await svc.key();
  client = new ServiceClient(svc.url, key);
  ({ workspaceId } = await client.ingest(
    uploaded.map((p) => ({ name: p.name, content: readFileSync(p.file, 'utf8'), type: 'text/html' })),
    { timeoutMs: 5 * 60_000 },
  ));
  // Every run measures the same index: the one the worker's maintenance leaves once it has caught up.
  const state = await waitForIndexed(path.join(svc.dataDir, 'index'), workspaceId, 3 * 60_000);
  if (state.unindexed > 0) throw new Error(`${state.unindexed} rows still outside the BM25 index`);
}

describe('Debian handbook questions through the service', () => {
  it('has an answer pattern that matches its page for every question of both manuals', async () => {
    ready();
    expect(verifyAnswers(set, pages).verified).toBe(set.answerable.length);
    const git = loadManualSet('git-doc');
    expect(verifyAnswers(git, manualPages(await manualDir(git.package), git)).verified).toBe(
      git.answerable.length,
    );
  }, 120_000);

  it('finds and answers the questions, and declines the ones the manual cannot answer', async () => {
    ready();
    const extracted = await extractedAnswers(client, workspaceId, questions);
    const { evaluation } = await evaluateThroughService(
      { url: svc.url, key },
      workspaceId,
      'handbook subset',
      manualQuestions(questions, unanswerable),
      [{ name: 'default', search: { topK: TOP_K } }],
    );
    const s = manualScores(evaluation, { share: extracted.filter(Boolean).length / extracted.length });
    console.info(
      `handbook subset: extracted ${s.answerExtracted.toFixed(3)}, answer recall@5 ${s.answerRecall5.toFixed(3)}, ` +
        `page hit@5 ${s.pageHit5.toFixed(3)}, chat contains ${s.chatContains.toFixed(3)}, ` +
        `false declines ${s.falseDeclines}, declined ${s.declined} of ${s.unanswerable}`,
    );
    expect(s.answerable).toBe(QUESTIONS);
    expect(s.unanswerable).toBe(UNANSWERABLE);
    // Measured on these held-out questions (issue 27): extracted 30/30, recall@5 24/30, page hit@5
    // 28/30, chat contains 15/30, 1 false decline, 9 of 15 declined. Each floor leaves two questions
    // of room, so that a run on another machine (parse and commit order) does not fail on one
    // question, while a lost lever (three questions and more) does.
    expect(s.answerExtracted).toBeGreaterThanOrEqual(28 / 30);
    expect(s.answerRecall5).toBeGreaterThanOrEqual(22 / 30);
    expect(s.pageHit5).toBeGreaterThanOrEqual(26 / 30);
    expect(s.chatContains).toBeGreaterThanOrEqual(13 / 30);
    expect(s.falseDeclines).toBeLessThanOrEqual(3);
    expect(s.declined).toBeGreaterThanOrEqual(7);
  }, 300_000);
});
