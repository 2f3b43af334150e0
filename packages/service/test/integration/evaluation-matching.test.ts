import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDBOOK, SECURITY, waitForEvaluation } from '../support/evaluations.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * How an evaluation decides a question was answered (issue 40, docs/evaluation.md "How answers are
 * compared"), through the API: answer patterns on the linear-time engine, SQuAD's normalisation,
 * citations of what is expected, recall@100, passages per document, and a set stored by an older
 * version. evaluations.test.ts has the job, its views and its lifecycle.
 */
let svc: TestService;
let owner: ReturnType<typeof client>;
let workspaceId: string;

async function questionSet(questions: unknown[]): Promise<string> {
  const made = await owner.post(`/v1/workspaces/${workspaceId}/question-sets`, {
    name: 'Handbook',
    questions,
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.id;
}

beforeAll(async () => {
  svc = await startTestService();
  owner = client(svc.url, await svc.key(['ingest', 'search', 'artifacts']));
  const up = await owner.upload([
    { name: 'handbook.md', content: HANDBOOK },
    { name: 'security.md', content: SECURITY },
  ]);
  expect(up.status).toBe(202);
  workspaceId = up.body.workspace.id;
  await owner.waitForRun(up.body.run.id);
}, 120_000);
afterAll(() => svc?.close());

describe('what an evaluation counts as answered', () => {
  it('matches answer patterns and SQuAD-style answers, checks citations of what is expected, and limits passages per document', async () => {
    const setId = await questionSet([
      {
        q: 'Which class is booked for flights longer than six hours?',
        patterns: ['business\\s+class'],
        expected: ['handbook.md'],
      },
      // SQuAD's way: the article and punctuation do not count, whole words do.
      { q: 'How many days of paid vacation?', answers: ['the 25 days.'], match: 'squad' },
      { q: 'How many days of paid vacation?', answers: ['5 days'], match: 'squad' },
      { q: 'Where are visitor badges collected?', expected: ['handbook.md'] },
    ]);
    const made = await owner.post('/v1/evaluations', {
      questionSetId: setId,
      configurations: [{ name: 'one each', search: { mode: 'lexical', maxChunksPerDocument: 1 } }],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    expect(made.body.configurations[0].search.maxChunksPerDocument).toBe(1);
    const done = await waitForEvaluation(owner, made.body.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    const { metrics } = done.results[0];
    // Pattern and "the 25 days." found; "5 days" is no whole-word match of "25 days".
    expect(metrics.answerRecallAt5).toMatchObject({ value: 2 / 3, n: 3 });
    expect(metrics.chatContains).toMatchObject({ value: 2 / 3, n: 3 });
    // The business-class answer cites the handbook; the badge answer cites the security note.
    expect(metrics.citedExpected).toMatchObject({ value: 0.5, n: 2 });
    // No word of the badge question is in the handbook: lexical search does not retrieve it at all.
    expect(metrics.recallAt100).toMatchObject({ value: 0.5, n: 2 });
    const { body } = await owner.get(`/v1/evaluations/${made.body.id}/questions`);
    for (const outcome of body.questions) {
      const documents = outcome.retrieved.map((r: { documentId: string }) => r.documentId);
      expect(new Set(documents).size).toBe(documents.length);
    }
    expect(body.questions[0].passed).toEqual(expect.arrayContaining(['answerRecallAt5', 'citedExpected']));
    expect(body.questions[3].failed).toContain('citedExpected');
  });

  it('refuses a pattern that cannot run in linear time, and reads a set stored before patterns existed', async () => {
    const refused = await owner.post(`/v1/workspaces/${workspaceId}/question-sets`, {
      name: 'Backreference',
      questions: [{ q: 'fine' }, { q: 'twice?', patterns: ['(ab)\\1'] }],
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/line 2|"line":2/);
    expect(JSON.stringify(refused.body)).toContain('linear time');
    // A question as an older version stored it: no `patterns`, no `match`.
    const setId = await questionSet([{ q: 'How many days of paid vacation?', answers: ['25 days'] }]);
    const db = new pg.Client({ connectionString: svc.dbs.urls.service });
    await db.connect();
    try {
      await db.query(
        `UPDATE question_sets SET questions = '[{"q": "How many days of paid vacation?", "answers": ["25 days"], "expected": [], "unanswerable": false, "language": null, "tags": []}]'::jsonb WHERE id = $1`,
        [setId],
      );
    } finally {
      await db.end();
    }
    const read = await owner.get(`/v1/question-sets/${setId}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.questions[0]).toMatchObject({ patterns: [], match: 'folded' });
    const made = await owner.post('/v1/evaluations', { questionSetId: setId });
    const done = await waitForEvaluation(owner, made.body.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.results[0].metrics.chatContains).toMatchObject({ value: 1, n: 1 });
  });
});
