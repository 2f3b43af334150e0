import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/keys.js';
import { storedChecks } from '../../src/evaluation/metrics.js';
import { runEvaluation } from '../../src/evaluation/runner.js';
import type { StoredOutcome } from '../../src/evaluation/store.js';
import { HANDBOOK, SECURITY, waitForEvaluation } from '../support/evaluations.js';
import { client } from '../support/http.js';
import { capturingLog } from '../support/log.js';
import { startTestService, type TestService } from '../support/service.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * Evaluations through the API (issue 40): a set asked as a job of the worker under several
 * configurations, its metrics and per-question outcomes, refusals of what the server cannot do, the
 * creator's view, cancellation, comparison, the webhook event, and a worker taking over mid-way.
 */
let svc: TestService;
let receiver: Receiver;
let owner: ReturnType<typeof client>;
let workspaceId: string;

const QUESTIONS = [
  {
    q: 'How many days of paid vacation does an employee receive?',
    answers: ['25 days'],
    expected: ['handbook.md'],
    tags: ['leave'],
    language: 'en',
  },
  {
    q: 'Where are visitor badges collected?',
    answers: ['reception desk'],
    expected: [{ passage: 'collected at the reception desk' }],
    tags: ['security'],
    language: 'en',
  },
  { q: 'Who won the 1998 football world cup?', unanswerable: true, tags: ['off-topic'] },
];

async function questionSet(questions: unknown[], workspace = workspaceId, api = owner): Promise<string> {
  const made = await api.post(`/v1/workspaces/${workspace}/question-sets`, { name: 'Handbook', questions });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.id;
}

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startTestService({
    env: {
      ENCRYPTION_KEY: 'ab'.repeat(32),
      URL_FETCH_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_POLL_INTERVAL_SECONDS: '0.1',
    },
  });
  owner = client(svc.url, await svc.key(['ingest', 'search', 'artifacts', 'admin']));
  const up = await owner.upload([
    { name: 'handbook.md', content: HANDBOOK },
    { name: 'security.md', content: SECURITY },
  ]);
  expect(up.status).toBe(202);
  workspaceId = up.body.workspace.id;
  await owner.waitForRun(up.body.run.id);
}, 120_000);
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

describe('evaluations', () => {
  it('asks every question under each configuration, scores it and keeps what each question got', async () => {
    const hook = await owner.post('/v1/webhooks', {
      url: receiver.url('/evaluations'),
      events: ['evaluation.completed'],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const setId = await questionSet(QUESTIONS);
    const made = await owner.post('/v1/evaluations', {
      questionSetId: setId,
      configurations: [
        { name: 'quoted', search: { mode: 'lexical' } },
        { name: 'passages', answers: null },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    expect(made.body).toMatchObject({
      id: expect.stringMatching(/^ev_/),
      workspaceId,
      questionSetId: setId,
      name: 'Handbook',
      status: 'queued',
      progress: { done: 0, total: 6, etaSeconds: null },
      configurations: [
        {
          name: 'quoted',
          search: { topK: 10, mode: 'lexical', rerank: false },
          answers: { mode: 'extractive' },
        },
        { name: 'passages', search: { topK: 10, mode: 'lexical', rerank: false }, answers: null },
      ],
    });
    const done = await waitForEvaluation(owner, made.body.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.progress).toMatchObject({ done: 6, total: 6 });

    const [quoted, passages] = done.results;
    expect(quoted.configuration).toBe('quoted');
    // The two answerable questions find what they expect first, and the answer quotes it.
    expect(quoted.metrics.hitAt1).toMatchObject({ value: 1, n: 2 });
    expect(quoted.metrics.answerRecallAt5).toMatchObject({ value: 1, n: 2 });
    expect(quoted.metrics.chatContains).toMatchObject({ value: 1, n: 2 });
    expect(quoted.metrics.unanswerableDeclined).toMatchObject({ value: 1, n: 1 });
    expect(quoted.metrics.falseDeclines).toMatchObject({ value: 0, n: 2 });
    expect(quoted.metrics.searchP50Ms.n).toBe(3);
    expect(quoted.metrics.chatP50Ms.n).toBe(3);
    // Passages only: nothing about answers.
    expect(passages.metrics.hitAt1).toMatchObject({ value: 1, n: 2 });
    expect(passages.metrics.chatContains).toBeNull();
    expect(passages.metrics.unanswerableDeclined).toBeNull();
    expect(passages.metrics.chatP50Ms).toBeNull();
    expect(Object.keys(quoted.tags).sort()).toEqual(['leave', 'off-topic', 'security']);
    expect(quoted.tags.leave.hitAt1).toMatchObject({ value: 1, n: 1 });
    expect(Object.keys(quoted.languages)).toEqual(['en']);

    const questions = await owner.get(`/v1/evaluations/${made.body.id}/questions?configuration=quoted`);
    expect(questions.status, JSON.stringify(questions.body)).toBe(200);
    expect(questions.body.nextOffset).toBeNull();
    const [first, second, third] = questions.body.questions;
    expect(first).toMatchObject({ configuration: 'quoted', ordinal: 0, q: QUESTIONS[0]!.q, tags: ['leave'] });
    expect(first.retrieved[0]).toMatchObject({ rank: 1, filename: 'handbook.md' });
    expect(first.answer.text).toContain('25 days');
    expect(first.answer.citations[0].filename).toBe('handbook.md');
    expect(first.passed).toEqual(expect.arrayContaining(['hitAt1', 'answerRecallAt5', 'chatContains']));
    expect(first.failed).toEqual([]);
    expect(second.retrieved[0].filename).toBe('security.md');
    expect(third.answer.declined).toBe(true);
    expect(third.passed).toContain('unanswerableDeclined');
    const paged = await owner.get(`/v1/evaluations/${made.body.id}/questions?limit=4`);
    expect(paged.body.questions.map((q: { configuration: string }) => q.configuration)).toEqual([
      'quoted',
      'quoted',
      'quoted',
      'passages',
    ]);
    expect(paged.body.nextOffset).toBe(4);

    // The webhook carries the outcome and each configuration's values.
    const [delivered] = await receiver.waitFor('/evaluations', 1, 15_000);
    const event = JSON.parse(delivered!.body);
    expect(event).toMatchObject({
      type: 'evaluation.completed',
      data: { id: made.body.id, status: 'completed' },
    });
    expect(event.data.results[0]).toMatchObject({
      configuration: 'quoted',
      metrics: { hitAt1: 1, chatContains: 1 },
    });
    expect(delivered!.headers['webhook-signature']).toMatch(/^v1,/);

    const listed = await owner.get(`/v1/workspaces/${workspaceId}/evaluations`);
    expect(listed.body.evaluations.map((e: { id: string }) => e.id)).toContain(made.body.id);
  });

  it('refuses a configuration that asks for what this server has not, naming it', async () => {
    const setId = await questionSet(QUESTIONS.slice(0, 1));
    const cases: [unknown, RegExp][] = [
      [{ name: 'h', search: { mode: 'hybrid' } }, /"h".*embedding model \(EMBEDDINGS_PROVIDER\)/],
      [{ name: 'v', search: { mode: 'vector' } }, /"v".*EMBEDDINGS_PROVIDER/],
      [{ name: 'r', search: { rerank: true } }, /"r".*reranker \(RERANK_PROVIDER\)/],
      [{ name: 'm', answers: { mode: 'model' } }, /"m".*chat model \(LLM_BASE_URL and LLM_MODEL\)/],
    ];
    for (const [configuration, message] of cases) {
      const r = await owner.post('/v1/evaluations', {
        questionSetId: setId,
        configurations: [configuration],
      });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.code).toBe('configuration_unavailable');
      expect(r.body.error.message).toMatch(message);
    }
    const twice = await owner.post('/v1/evaluations', {
      questionSetId: setId,
      configurations: [{ name: 'a' }, { name: 'a' }],
    });
    expect(twice.status).toBe(400);
    const unknown = await owner.post('/v1/evaluations', { questionSetId: 'qs_nothing' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('question_set_not_found');
    expect((await owner.get('/v1/evaluations/ev_nothing')).body.error.code).toBe('evaluation_not_found');
  });

  it("asks with its creator's view, and is seen by the creator and the whole account only", async () => {
    const groups = await owner.post('/v1/groups', { name: 'Security team' });
    expect(groups.status).toBe(201);
    const readerKey = async (email: string) => {
      const user = await owner.post('/v1/users', { email, role: 'reader' });
      expect(user.status, JSON.stringify(user.body)).toBe(201);
      const accountId = (await svc.deps.accounts.ensureAccount('default')).id;
      const made = await createApiKey(svc.deps.accounts, {
        accountId,
        scopes: ['search', 'artifacts'],
        name: email,
        userId: user.body.id,
      });
      return client(svc.url, made.secret);
    };
    const reader = await readerKey('reader@example.com');
    const other = await readerKey('other@example.com');
    // security.md is narrowed to a group the reader is not in.
    const docs = await owner.get(`/v1/workspaces/${workspaceId}/documents`);
    const security = docs.body.documents.find((d: { filename: string }) => d.filename === 'security.md');
    expect(
      (await owner.patch(`/v1/documents/${security.id}`, { access: { groups: ['Security team'] } })).status,
    ).toBe(200);
    try {
      const setId = await questionSet(QUESTIONS.slice(0, 2));
      const made = await reader.post('/v1/evaluations', {
        questionSetId: setId,
        configurations: [{ answers: null }],
      });
      expect(made.status, JSON.stringify(made.body)).toBe(202);
      const done = await waitForEvaluation(reader, made.body.id);
      expect(done.status).toBe('completed');
      const asked = await reader.get(`/v1/evaluations/${made.body.id}/questions`);
      const retrieved = asked.body.questions.flatMap((q: { retrieved: { filename: string }[] }) =>
        q.retrieved.map((r) => r.filename),
      );
      expect(retrieved.length).toBeGreaterThan(0);
      expect(retrieved).not.toContain('security.md');
      // The badge question's passage is hidden from the reader: not found, where the owner finds it.
      expect(done.results[0].metrics.hitAt1).toMatchObject({ value: 0.5, n: 2 });

      expect((await other.get(`/v1/evaluations/${made.body.id}`)).status).toBe(404);
      expect((await other.get(`/v1/evaluations/${made.body.id}/questions`)).status).toBe(404);
      expect((await other.post(`/v1/evaluations/${made.body.id}/cancel`, {})).status).toBe(404);
      const othersList = await other.get(`/v1/workspaces/${workspaceId}/evaluations`);
      expect(othersList.body.evaluations.map((e: { id: string }) => e.id)).not.toContain(made.body.id);
      expect((await owner.get(`/v1/evaluations/${made.body.id}`)).status).toBe(200);
      // The reader's own list has it, and no evaluation the account's key made.
      const readersList = await reader.get(`/v1/workspaces/${workspaceId}/evaluations`);
      expect(readersList.body.evaluations.map((e: { id: string }) => e.id)).toEqual([made.body.id]);
    } finally {
      await owner.patch(`/v1/documents/${security.id}`, { access: null });
    }
  });

  it('stops at a cancellation, keeping what it asked, and compares two evaluations question by question', async () => {
    const many = Array.from({ length: 400 }, (_, i) => ({
      q: `How many days of paid vacation, case ${i}?`,
      answers: ['25 days'],
    }));
    const big = await owner.post('/v1/evaluations', { questionSetId: await questionSet(many) });
    const cancelled = await owner.post(`/v1/evaluations/${big.body.id}/cancel`, {});
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 2500));
    const later = await owner.get(`/v1/evaluations/${big.body.id}`);
    expect(later.body.status).toBe('cancelled');
    expect(later.body.progress.done).toBeLessThan(400);
    const again = await owner.post(`/v1/evaluations/${big.body.id}/cancel`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_evaluation_state');
    expect((await owner.get(`/v1/evaluations/${big.body.id}/compare/${big.body.id}`)).status).toBe(409);

    // Only the first passage counts for topK 1: the badge question's expected passage is second for
    // a query that matches the handbook better.
    const questions = [
      QUESTIONS[0],
      {
        q: 'Which class is booked for long flights, and where are visitor badges?',
        expected: ['security.md'],
      },
    ];
    const setId = await questionSet(questions);
    const narrow = await owner.post('/v1/evaluations', {
      questionSetId: setId,
      configurations: [{ search: { topK: 1, mode: 'lexical' }, answers: null }],
    });
    const wide = await owner.post('/v1/evaluations', {
      questionSetId: setId,
      configurations: [{ search: { topK: 10, mode: 'lexical' }, answers: null }],
    });
    await waitForEvaluation(owner, narrow.body.id);
    await waitForEvaluation(owner, wide.body.id);
    const compared = await owner.get(`/v1/evaluations/${narrow.body.id}/compare/${wide.body.id}`);
    expect(compared.status, JSON.stringify(compared.body)).toBe(200);
    const [pair] = compared.body.configurations;
    expect(pair.paired).toBe(true);
    expect(pair.metrics.hitAt1.difference.value).toBe(0);
    expect(pair.metrics.hitAt5.a.value).toBe(0.5);
    expect(pair.metrics.hitAt5.b.value).toBe(1);
    expect(pair.metrics.hitAt5.difference).toMatchObject({ value: 0.5, n: 2 });
    expect(pair.metrics.hitAt5.difference.low).toBeLessThanOrEqual(0.5);
    expect(pair.metrics.hitAt5.difference.high).toBe(1);
    expect(pair.changed).toEqual([
      {
        ordinal: 1,
        q: questions[1]!.q,
        worse: [],
        better: expect.arrayContaining(['hitAt5', 'hitAt10', 'mrr']),
      },
    ]);
  });

  it('is taken over by another worker when its holder stops, asking only what is left', async () => {
    const setId = await questionSet(QUESTIONS);
    const accountId = (await svc.deps.accounts.ensureAccount('default')).id;
    // Stored without a job, as if its first worker had taken it and died after one question.
    const e = await svc.deps.evaluations.insertEvaluation({
      id: `ev_takeover_${Date.now()}`,
      accountId,
      workspaceId,
      questionSetId: setId,
      questionSetName: 'Handbook',
      name: 'Take-over',
      configurations: [
        {
          name: 'default',
          search: { topK: 10, mode: 'lexical', hybridWeight: 0.5, rerank: false },
          answers: null,
        },
      ],
      owner: { kind: 'account' },
      createdBy: 'test',
      total: 3,
    });
    expect(await svc.deps.evaluations.claimEvaluation(e!.id, 'worker-a', 60)).toBeDefined();
    const planted: StoredOutcome = {
      q: 'planted',
      language: null,
      tags: [],
      retrieved: [],
      answer: null,
      searchMs: 1,
      chatMs: null,
      // Every check not named is null (not applicable).
      checks: storedChecks({
        hitAt1: 0,
        hitAt5: 0,
        hitAt10: 0,
        reciprocalRank: 0,
        answerRecallAt5: 0,
        ndcgAt10: 0,
      }),
    };
    expect(
      await svc.deps.evaluations.recordOutcomes(e!.id, 'worker-a', 60, [
        { configuration: 0, ordinal: 0, outcome: planted },
      ]),
    ).toBe('running');
    // Another worker may not take it while worker-a's lease holds.
    const runner = { ...svc.deps, log: capturingLog().log };
    expect(await runEvaluation(runner, e!.id, 'worker-b')).toBe('not-taken');
    await svc.deps.pool.query(
      "UPDATE evaluations SET lease_until = now() - interval '1 second' WHERE id = $1",
      [e!.id],
    );
    expect(await runEvaluation(runner, e!.id, 'worker-b')).toBe('completed');
    // worker-a, back, finds it is no longer its own.
    expect(await svc.deps.evaluations.recordOutcomes(e!.id, 'worker-a', 60, [])).toBe('completed');
    const rows = await svc.deps.evaluations.listOutcomes(e!.id, { offset: 0, limit: 10 });
    expect(rows.map((r) => [r.ordinal, r.outcome.q])).toEqual([
      [0, 'planted'],
      [1, QUESTIONS[1]!.q],
      [2, QUESTIONS[2]!.q],
    ]);
    const done = await owner.get(`/v1/evaluations/${e!.id}`);
    expect(done.body.status).toBe('completed');
    // The planted miss counts: one of the two answerable questions found first.
    expect(done.body.results[0].metrics.hitAt1).toMatchObject({ value: 0.5, n: 2 });
  });
});
