import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  createDocSlurpClient,
  type DocSlurpClient,
  NotFoundError,
} from '../../src/index.js';
import { type RunningServer, startServer } from '../support/server.js';

/** Question sets through the SDK against a real server (issue 40): JSON, a file, refusals, deletion. */
let server: RunningServer;
let client: DocSlurpClient;

beforeAll(async () => {
  server = await startServer();
  client = createDocSlurpClient({ apiUrl: server.url, apiKey: server.apiKey });
});
afterAll(() => server?.stop());

describe('client.questionSets', () => {
  it('creates sets from questions and from a file, lists, reads and deletes them', async () => {
    const ws = await client.createWorkspace({ name: 'SDK quality' });
    const fromList = await client.questionSets.create(ws.id, {
      name: 'Listed',
      questions: [{ q: 'How long is the warranty?', answers: ['two years'] }],
    });
    expect(fromList).toMatchObject({ name: 'Listed', questionCount: 1 });
    expect(fromList.questions[0]).toMatchObject({ answers: ['two years'], unanswerable: false, tags: [] });
    const fromFile = await client.questionSets.create(ws.id, {
      file: { filename: 'faq.csv', data: 'q,tags\nWhere is the reset button?,hardware\n' },
    });
    expect(fromFile).toMatchObject({ name: 'faq', questionCount: 1 });
    expect((await client.questionSets.list(ws.id)).map((s) => s.id)).toEqual([fromFile.id, fromList.id]);
    expect((await client.questionSets.get(fromFile.id)).questions[0]?.tags).toEqual(['hardware']);
    expect((await client.questionSets.delete(fromList.id)).id).toBe(fromList.id);
    await expect(client.questionSets.get(fromList.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('says which lines of a file are wrong, as a BadRequestError with the problems', async () => {
    const ws = await client.createWorkspace({ name: 'SDK refusals' });
    const error = await client.questionSets
      .create(ws.id, {
        file: { filename: 'bad.jsonl', data: '{"q": "fine"}\n{"question": "wrong field"}\n' },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ code: 'invalid_questions', status: 400 });
    expect((error as BadRequestError).problems).toEqual([
      { line: 2, message: expect.stringContaining('unknown field "question"') },
    ]);
    expect(await client.questionSets.list(ws.id)).toEqual([]);
  });
});
