import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchIndex } from '../../src/domain/ports.js';
import { AppError } from '../../src/errors.js';
import { runEvaluation } from '../../src/evaluation/runner.js';
import { client } from '../support/http.js';
import { capturingLog } from '../support/log.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * An evaluation whose question cannot be asked (issue 40): the runner retries it, then fails the
 * evaluation naming that question, and keeps what the other questions got, those asked beside it
 * included (questions are asked two at a time).
 */
let svc: TestService;
let owner: ReturnType<typeof client>;
let workspaceId: string;

beforeAll(async () => {
  // The evaluation is stored without a job: the test runs it itself, with an index that refuses one question.
  svc = await startTestService();
  owner = client(svc.url, await svc.key(['ingest', 'search', 'artifacts']));
  const up = await owner.upload([
    { name: 'note.md', content: '# Leave\n\nEmployees get 25 days of leave.\n' },
  ]);
  expect(up.status).toBe(202);
  workspaceId = up.body.workspace.id;
  await owner.waitForRun(up.body.run.id);
}, 120_000);
afterAll(() => svc?.close());

describe('a question that cannot be asked', () => {
  it('is retried, then fails the evaluation naming it, and what the others got is kept', async () => {
    const set = await owner.post(`/v1/workspaces/${workspaceId}/question-sets`, {
      name: 'One bad',
      questions: [{ q: 'How many days of leave?' }, { q: 'boom' }, { q: 'Who gets leave?' }],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    const accountId = (await svc.deps.accounts.ensureAccount('default')).id;
    const e = await svc.deps.evaluations.insertEvaluation({
      id: `ev_fails_${Date.now()}`,
      accountId,
      workspaceId,
      questionSetId: set.body.id,
      questionSetName: 'One bad',
      name: 'One bad',
      configurations: [
        {
          name: 'default',
          search: { topK: 5, mode: 'lexical', hybridWeight: 0.5, rerank: false },
          answers: null,
        },
      ],
      owner: { kind: 'account' },
      createdBy: 'test',
      total: 3,
    });
    let attempts = 0;
    const index: SearchIndex = Object.create(svc.deps.index);
    index.search = async (ws, query) => {
      if (query.text !== 'boom') return svc.deps.index.search(ws, query);
      attempts++;
      throw new AppError('model_unavailable', 'The embedding model is not answering.');
    };
    const runner = { ...svc.deps, index, log: capturingLog().log };
    const outcome = await runEvaluation(runner, e!.id, 'worker-test', {
      leaseSeconds: 60,
      batchQuestions: 20,
      batchMs: 2_000,
      retries: 2,
      retryDelayMs: 10,
      concurrency: 2,
    });
    expect(outcome).toBe('failed');
    expect(attempts).toBe(3);
    const failed = await owner.get(`/v1/evaluations/${e!.id}`);
    expect(failed.body.status).toBe('failed');
    expect(failed.body.error).toEqual({
      code: 'model_unavailable',
      message: expect.stringContaining('Question 2 ("boom") could not be asked in configuration "default"'),
    });
    // The first question was asked beside the bad one and is kept; the third was never reached.
    const rows = await svc.deps.evaluations.listOutcomes(e!.id, { offset: 0, limit: 10 });
    expect(rows.map((r) => r.ordinal)).toEqual([0]);
  });
});
