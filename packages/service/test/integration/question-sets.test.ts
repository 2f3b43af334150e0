import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Reply } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/** Question sets through the API (issue 40): JSON, uploaded files, line errors, visibility, deletion. */
let svc: TestService;
let owner: ReturnType<typeof client>;
let workspaceId: string;

async function sendFile(
  workspace: string,
  filename: string,
  content: string,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([content]), filename);
  const res = await fetch(`${svc.url}/v1/workspaces/${workspace}/question-sets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await svc.key()}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Reply['body'] };
}

beforeAll(async () => {
  svc = await startTestService();
  owner = client(svc.url, await svc.key());
  const ws = await owner.post('/v1/workspaces', { name: 'Quality' });
  workspaceId = ws.body.id;
});
afterAll(() => svc?.close());

describe('question sets', () => {
  it('stores a JSON set with defaults filled in, lists it without questions, and reads it whole', async () => {
    const made = await owner.post(`/v1/workspaces/${workspaceId}/question-sets`, {
      name: 'Warranty',
      questions: [
        { q: 'How long is the warranty?', answers: ['two years'], expected: ['handbook.pdf'] },
        { q: 'Who won the 1998 World Cup?', unanswerable: true, tags: ['off-topic'] },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      id: expect.stringMatching(/^qs_/),
      workspaceId,
      name: 'Warranty',
      questionCount: 2,
    });
    expect(made.body.questions[1]).toEqual({
      q: 'Who won the 1998 World Cup?',
      answers: [],
      patterns: [],
      match: 'folded',
      expected: [],
      unanswerable: true,
      language: null,
      tags: ['off-topic'],
      history: [],
    });
    const listed = await owner.get(`/v1/workspaces/${workspaceId}/question-sets`);
    expect(listed.body.questionSets).toEqual([
      expect.objectContaining({ id: made.body.id, questionCount: 2, createdBy: expect.any(String) }),
    ]);
    expect(listed.body.questionSets[0].questions).toBeUndefined();
    const read = await owner.get(`/v1/question-sets/${made.body.id}`);
    expect(read.body.questions).toEqual(made.body.questions);
  });

  it('takes an uploaded JSONL or CSV file, named after the file unless a name is sent', async () => {
    const jsonl = await sendFile(
      workspaceId,
      'manual-questions.jsonl',
      '{"q": "Where is the reset button?", "expected": [{"document": "manual.pdf", "page": 4}]}\n',
    );
    expect(jsonl.status, JSON.stringify(jsonl.body)).toBe(201);
    expect(jsonl.body).toMatchObject({ name: 'manual-questions', questionCount: 1 });
    expect(jsonl.body.questions[0].expected).toEqual([{ document: 'manual.pdf', page: 4 }]);
    const csv = await sendFile(
      workspaceId,
      'set.csv',
      'q,answers\n"How long, exactly?",two years|24 months\n',
      {
        name: 'From a spreadsheet',
      },
    );
    expect(csv.status, JSON.stringify(csv.body)).toBe(201);
    expect(csv.body).toMatchObject({ name: 'From a spreadsheet', questionCount: 1 });
    expect(csv.body.questions[0]).toMatchObject({
      q: 'How long, exactly?',
      answers: ['two years', '24 months'],
    });
  });

  it('refuses a file with bad lines, naming each by line, and stores nothing of it', async () => {
    const before = (await owner.get(`/v1/workspaces/${workspaceId}/question-sets`)).body.questionSets.length;
    const bad = await sendFile(
      workspaceId,
      'bad.jsonl',
      ['{"q": "fine"}', '{"q": "x", "answer": ["typo"]}', '{"q": "fine too"}', '{"q": ""}'].join('\n'),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'invalid_questions',
      message: expect.stringContaining('line 2: unknown field "answer"'),
      problems: [
        { line: 2, message: 'unknown field "answer"' },
        { line: 4, message: 'q is empty' },
      ],
    });
    const json = await owner.post(`/v1/workspaces/${workspaceId}/question-sets`, {
      name: 'Bad',
      questions: [{ q: 'ok' }, { q: 'x', unanswerable: 'yes' }],
    });
    expect(json.status).toBe(400);
    expect(json.body.error.problems).toEqual([{ line: 2, message: expect.stringContaining('unanswerable') }]);
    expect((await owner.get(`/v1/workspaces/${workspaceId}/question-sets`)).body.questionSets).toHaveLength(
      before,
    );
    // A file the service cannot tell the format of, or that is not UTF-8, is refused with a reason.
    expect((await sendFile(workspaceId, 'questions.txt', 'q\nx\n')).body.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('.jsonl, .csv or .json'),
    });
    const form = new FormData();
    form.append('file', new Blob([Uint8Array.from([0x71, 0x0a, 0xff, 0xfe, 0x0a])]), 'raw.csv');
    const raw = await fetch(`${svc.url}/v1/workspaces/${workspaceId}/question-sets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await svc.key()}` },
      body: form,
    });
    expect(((await raw.json()) as Reply['body']).error).toMatchObject({
      code: 'invalid_questions',
      problems: [{ line: 1, message: 'the file is not UTF-8 text' }],
    });
  });

  it('is not found by a member who may not see its workspace, and cannot be made by a reader', async () => {
    const admin = client(svc.url, await svc.key(['admin']));
    await admin.post('/v1/groups', { name: 'Finance' });
    await admin.post('/v1/users', { email: 'reader@example.com', role: 'reader', groups: [] });
    const hidden = await owner.post('/v1/workspaces', {
      name: 'Finance only',
      access: { read: { groups: ['Finance'] }, edit: { groups: ['Finance'] } },
    });
    const set = await owner.post(`/v1/workspaces/${hidden.body.id}/question-sets`, {
      name: 'Finance questions',
      questions: [{ q: 'What was the budget?' }],
    });
    const actAs = await svc.key(['ingest', 'search', 'artifacts', 'act-as']);
    const asReader = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(svc.url + path, {
        method,
        headers: {
          authorization: `Bearer ${actAs}`,
          'docslurp-on-behalf-of': 'reader@example.com',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as Reply['body'] };
    };
    expect((await asReader('GET', `/v1/question-sets/${set.body.id}`)).body.error.code).toBe(
      'question_set_not_found',
    );
    expect((await asReader('GET', `/v1/workspaces/${hidden.body.id}/question-sets`)).status).toBe(404);
    // The open workspace: the reader reads its sets, but may not add or delete one.
    const visible = (await owner.get(`/v1/workspaces/${workspaceId}/question-sets`)).body.questionSets[0];
    expect((await asReader('GET', `/v1/question-sets/${visible.id}`)).status).toBe(200);
    const add = await asReader('POST', `/v1/workspaces/${workspaceId}/question-sets`, {
      name: 'Mine',
      questions: [{ q: 'x' }],
    });
    expect([add.status, add.body.error.code]).toEqual([403, 'insufficient_scope']);
  });

  it('is deleted on request, and with its workspace', async () => {
    const ws = await owner.post('/v1/workspaces', { name: 'Short-lived' });
    const a = await owner.post(`/v1/workspaces/${ws.body.id}/question-sets`, {
      name: 'A',
      questions: [{ q: 'a?' }],
    });
    const b = await owner.post(`/v1/workspaces/${ws.body.id}/question-sets`, {
      name: 'B',
      questions: [{ q: 'b?' }],
    });
    const deleted = await owner.delete(`/v1/question-sets/${a.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: a.body.id, name: 'A', questionCount: 1 });
    expect((await owner.get(`/v1/question-sets/${a.body.id}`)).status).toBe(404);
    expect((await owner.delete(`/v1/question-sets/${a.body.id}`)).status).toBe(404);
    expect((await owner.delete(`/v1/workspaces/${ws.body.id}`)).status).toBe(200);
    expect((await owner.get(`/v1/question-sets/${b.body.id}`)).status).toBe(404);
    const rows = await svc.deps.pool.query(
      'SELECT count(*)::int AS n FROM question_sets WHERE workspace_id = $1',
      [ws.body.id],
    );
    expect(rows.rows[0].n).toBe(0);
  });
});
