import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_FOUND_ANSWER } from '../../src/answers/extractive.js';
import { client } from '../support/http.js';
import { type ModelServer, startModelServer } from '../support/model-servers.js';
import { runWithNode22 } from '../support/node22.js';
import { startTestService, type TestService } from '../support/service.js';

let models: ModelServer;
let svc: TestService;
let key: string;
let api: ReturnType<typeof client>;
let workspaceId: string;

beforeAll(async () => {
  models = await startModelServer();
  svc = await startTestService({
    env: { LLM_BASE_URL: models.url, LLM_MODEL: 'fake-chat', LLM_API_KEY: 'llm-key', LLM_MAX_RETRIES: '0' },
  });
  key = await svc.key();
  api = client(svc.url, key);
  const up = await api.upload([
    {
      name: 'handbook.md',
      content:
        '# Leave\n\nEvery employee receives 25 days of paid vacation per year. Unused days expire in March.\n',
    },
    { name: 'security.md', content: '# Security\n\nBadges must be worn at all times inside the building.\n' },
  ]);
  workspaceId = up.body.workspace.id;
  await api.waitForRun(up.body.run.id);
});
afterAll(async () => {
  await svc?.close();
  await models?.close();
});

const markers = (answer: string) => [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));

async function sse(res: Response) {
  return (await res.text())
    .trim()
    .split('\n\n')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      return { event, data };
    });
}

describe('answers from an OpenAI-compatible chat model (a local server speaking the API)', () => {
  it('answers from numbered sources and drops a marker that names no source', async () => {
    const r = await api.post('/v1/search/chat', {
      workspaceId,
      q: 'How many days of paid vacation per year?',
    });
    expect(r.status).toBe(200);
    expect(r.body.answer).toBe('Every employee receives 25 days of paid vacation per year [1].');
    expect(r.body.citations).toHaveLength(1);
    expect(r.body.citations[0]).toMatchObject({ n: 1, filename: 'handbook.md' });
    for (const n of markers(r.body.answer))
      expect(r.body.citations.some((c: { n: number }) => c.n === n)).toBe(true);
    const sent = models.chatRequests.at(-1)!;
    expect(sent.model).toBe('fake-chat');
    expect(sent.messages[0]!.role).toBe('system');
    expect(sent.messages.at(-1)!.content).toMatch(/^Sources:\n\n\[1\] \(handbook\.md, Leave\)/);
  });

  it('says the workspace lacks the answer when the model finds nothing in the sources', async () => {
    const r = await api.post('/v1/search/chat', { workspaceId, q: 'What is the vacation policy on Mars?' });
    expect(r.body).toEqual({ answer: NOT_FOUND_ANSWER, citations: [], kind: 'declined' });
  });

  it('passes the conversation history to the model', async () => {
    const history = [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi, ask me about the handbook.' },
    ];
    const r = await api.post('/v1/search/chat', {
      workspaceId,
      q: 'Must badges be worn in the building?',
      history,
    });
    expect(r.body.answer).toBe('Badges must be worn at all times inside the building [1]. (turn 2)');
    expect(models.chatRequests.at(-1)!.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
  });

  it('streams deltas that concatenate to the checked answer, then citations, then done', async () => {
    const res = await fetch(`${svc.url}/v1/search/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId, q: 'How many days of paid vacation per year?', stream: true }),
    });
    const events = await sse(res);
    expect(models.chatRequests.at(-1)!.stream).toBe(true);
    expect(events.at(-2)!.event).toBe('citations');
    expect(events.at(-1)!.event).toBe('done');
    const deltas = events.filter((e) => e.event === 'delta').map((e) => JSON.parse(e.data).text as string);
    expect(deltas.length).toBeGreaterThan(5);
    const done = JSON.parse(events.at(-1)!.data);
    expect(deltas.join('')).toBe(done.answer);
    expect(done.answer).toBe('Every employee receives 25 days of paid vacation per year [1].');
    expect(done.citations.map((c: { n: number }) => c.n)).toEqual([1]);
  });

  it('reports a failing model as 502 model_unavailable, also for a stream that has not started', async () => {
    const plain = await api.post('/v1/search/chat', { workspaceId, q: 'vacation explode' });
    expect([plain.status, plain.body.error.code]).toEqual([502, 'model_unavailable']);
    const streamed = await api.post('/v1/search/chat', { workspaceId, q: 'vacation explode', stream: true });
    expect([streamed.status, streamed.body.error.code]).toEqual([502, 'model_unavailable']);
  });
});

describe('OpenAI-compatible workspace chat', () => {
  const base = () => `${svc.url}/v1/workspaces/${workspaceId}/openai`;

  it('answers errors on its path in OpenAI’s shape', async () => {
    const unauth = await fetch(`${base()}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'docslurp', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(unauth.status).toBe(401);
    expect(await unauth.json()).toMatchObject({
      error: { type: 'authentication_error', code: 'missing_api_key', param: null },
    });
    const invalid = await api.post(`/v1/workspaces/${workspaceId}/openai/chat/completions`, {
      model: 'docslurp',
      messages: [],
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
    const lastNotUser = await api.post(`/v1/workspaces/${workspaceId}/openai/chat/completions`, {
      model: 'docslurp',
      messages: [{ role: 'assistant', content: 'hi' }],
    });
    expect(lastNotUser.body.error.message).toMatch(/last message must be a user message/);
    const missing = await api.get('/v1/workspaces/ws_nope/openai/models');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found_error', code: 'workspace_not_found' });
  });

  it('serves the official openai client under Node 22: models, a cited answer, and a cited stream', async () => {
    const script = `
      import OpenAI from 'openai';
      const client = new OpenAI({ apiKey: process.env.KEY, baseURL: process.env.BASE, maxRetries: 0 });
      const out = {};
      out.models = (await client.models.list()).data.map((m) => m.id);
      const plain = await client.chat.completions.create({
        model: 'docslurp',
        messages: [{ role: 'user', content: 'How many days of paid vacation per year?' }],
      });
      out.plain = { content: plain.choices[0].message.content, finish: plain.choices[0].finish_reason, usage: plain.usage, citations: plain.citations };
      const stream = await client.chat.completions.create({
        model: 'docslurp',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: 'Hi.' },
          { role: 'user', content: 'Must badges be worn in the building?' },
        ],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let chunks = 0;
      let last;
      for await (const chunk of stream) {
        chunks++;
        text += chunk.choices[0]?.delta?.content ?? '';
        last = chunk;
      }
      out.stream = { text, chunks, lastCitations: last.citations, usage: last.usage };
      try {
        await new OpenAI({ apiKey: 'dsk_wrong', baseURL: process.env.BASE, maxRetries: 0 }).models.list();
      } catch (err) {
        out.error = { name: err.constructor.name, status: err.status, code: err.code, type: err.type };
      }
      process.stdout.write(JSON.stringify(out));
    `;
    const out = JSON.parse(await runWithNode22(script, { KEY: key, BASE: base() }));
    expect(out.models).toEqual(['docslurp']);
    expect(out.plain.content).toBe('Every employee receives 25 days of paid vacation per year [1].');
    expect(out.plain.finish).toBe('stop');
    expect(out.plain.usage).toEqual({ prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 });
    expect(out.plain.citations).toEqual([
      expect.objectContaining({ n: 1, filename: 'handbook.md', text: expect.any(String) }),
    ]);
    expect(out.stream.text).toBe('Badges must be worn at all times inside the building [1]. (turn 2)');
    expect(out.stream.chunks).toBeGreaterThan(5);
    expect(out.stream.lastCitations).toEqual([expect.objectContaining({ n: 1, filename: 'security.md' })]);
    expect(out.stream.usage.total_tokens).toBe(49);
    expect(out.error).toEqual({
      name: 'AuthenticationError',
      status: 401,
      code: 'invalid_api_key',
      type: 'authentication_error',
    });
  }, 400_000);
});
