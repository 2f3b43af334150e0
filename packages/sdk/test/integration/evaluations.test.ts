import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDocSlurpClient,
  type DocSlurpClient,
  type Evaluation,
  EvaluationCancelledError,
  type EvaluationOutcome,
  EvaluationTimeoutError,
  NotFoundError,
} from '../../src/index.js';
import { type RunningServer, startServer } from '../support/server.js';

/** Evaluations through the SDK against a real server (issue 40): create, wait, read, compare, cancel. */
let server: RunningServer;
let client: DocSlurpClient;
let workspaceId: string;

const HANDBOOK = [
  '# Leave',
  '',
  'Every employee receives 25 days of paid vacation per year. Unused days expire at the end of March.',
  '',
  '# Travel',
  '',
  'Business class is booked for flights longer than six hours. Economy class is booked for all other flights.',
].join('\n');
const SECURITY = '# Security\n\nVisitor badges are collected at the reception desk on the ground floor.\n';

beforeAll(async () => {
  server = await startServer();
  client = createDocSlurpClient({ apiUrl: server.url, apiKey: server.apiKey });
  const up = await client.upload({
    files: [
      { filename: 'handbook.md', data: HANDBOOK },
      { filename: 'security.md', data: SECURITY },
    ],
  });
  workspaceId = up.workspace.id;
  await client.waitForRun(up.run.id, { timeoutMs: 60_000 });
});
afterAll(() => server?.stop());

describe('client.evaluations', () => {
  it('creates an evaluation, waits for it, reads its metrics and questions, and compares two', async () => {
    const set = await client.questionSets.create(workspaceId, {
      name: 'Handbook',
      questions: [
        {
          q: 'How many days of paid vacation does an employee receive?',
          answers: ['25 days'],
          expected: ['handbook.md'],
        },
        { q: 'Where are visitor badges collected?', answers: ['reception desk'], expected: ['security.md'] },
        { q: 'Who won the 1998 football world cup?', unanswerable: true },
      ],
    });
    const made = await client.evaluations.create({
      questionSetId: set.id,
      configurations: [
        { name: 'lexical', search: { mode: 'lexical', topK: 10 }, answers: { mode: 'extractive' } },
      ],
    });
    expect(made).toMatchObject({ status: 'queued', progress: { done: 0, total: 3 }, results: null });
    const seen: Evaluation[] = [];
    const done = await client.evaluations.wait(made.id, {
      intervalMs: 100,
      timeoutMs: 60_000,
      onProgress: (e) => seen.push(e),
    });
    expect(done.status).toBe('completed');
    expect(seen.at(-1)?.status).toBe('completed');
    expect(done.progress).toMatchObject({ done: 3, total: 3 });
    const metrics = done.results?.[0]?.metrics;
    expect(metrics?.hitAt10).toMatchObject({ value: 1, n: 2 });
    expect(metrics?.hitAt10?.low).toBeLessThanOrEqual(metrics?.hitAt10?.value ?? 0);
    expect((await client.evaluations.get(made.id)).results).toEqual(done.results);
    expect((await client.evaluations.list(workspaceId)).map((e) => e.id)).toContain(made.id);

    const page = await client.evaluations.questions(made.id, { configuration: 'lexical', limit: 2 });
    expect(page.questions.map((q) => q.ordinal)).toEqual([0, 1]);
    expect(page.nextOffset).toBe(2);
    expect(page.questions[0]?.retrieved[0]?.filename).toBe('handbook.md');
    const all: EvaluationOutcome[] = [];
    for await (const outcome of client.evaluations.allQuestions(made.id, { limit: 1 })) all.push(outcome);
    expect(all.map((q) => q.ordinal)).toEqual([0, 1, 2]);

    const again = await client.evaluations.create({
      questionSetId: set.id,
      name: 'Passages only',
      configurations: [{ name: 'lexical', search: { mode: 'lexical', topK: 1 }, answers: null }],
    });
    await client.evaluations.wait(again.id, { timeoutMs: 60_000 });
    const comparison = await client.evaluations.compare(made.id, again.id);
    expect(comparison).toMatchObject({ a: made.id, b: again.id });
    const [pair] = comparison.configurations;
    expect(pair).toMatchObject({ a: 'lexical', b: 'lexical', paired: true });
    expect(pair?.metrics.hitAt10.difference).toMatchObject({ value: expect.any(Number), n: 2 });
    // Without answers, b has no answer metrics: null on its side.
    expect(pair?.metrics.chatContains.b).toBeNull();

    expect((await client.evaluations.delete(again.id)).id).toBe(again.id);
    await expect(client.evaluations.get(again.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rejects a wait that runs out with EvaluationTimeoutError, and one cancelled with EvaluationCancelledError', async () => {
    const questions = Array.from({ length: 300 }, (_, i) => ({ q: `Question ${i} about vacation days?` }));
    const set = await client.questionSets.create(workspaceId, { name: 'Many', questions });
    const made = await client.evaluations.create({
      questionSetId: set.id,
      configurations: [{ search: { mode: 'lexical' }, answers: { mode: 'extractive' } }],
    });
    const timedOut = await client.evaluations.wait(made.id, { timeoutMs: 1 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(EvaluationTimeoutError);
    expect(timedOut).toMatchObject({ code: 'evaluation_wait_timeout', evaluationId: made.id, timeoutMs: 1 });

    const cancelled = await client.evaluations.cancel(made.id);
    expect(cancelled.status).toBe('cancelled');
    const waited = await client.evaluations.wait(made.id, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(EvaluationCancelledError);
    expect((waited as EvaluationCancelledError).evaluation.status).toBe('cancelled');
  });

  it('refuses a wait with a bad timeout before any request', async () => {
    await expect(client.evaluations.wait('ev_x', { timeoutMs: 0 })).rejects.toMatchObject({
      code: 'invalid_option',
    });
  });
});
