import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocSlurpClient } from '../../../sdk/src/index.js';
import { waitForEvaluation } from '../support/evaluations.js';
import { FIREWALL_AND_PRINTING } from '../support/follow-up-note.js';
import { client } from '../support/http.js';
import { runWithNode22 } from '../support/node22.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Follow-up questions through the real service (issue 41, docs/decisions/0026-follow-up-questions.md):
 * the extractive answerer (no chat model) reads the conversation in POST /v1/search/chat (`history`)
 * and in the OpenAI-compatible chat completions (`messages` before the last user message).
 */

let svc: TestService;
let api: ReturnType<typeof client>;
let key: string;
let workspaceId: string;

const NOTE = FIREWALL_AND_PRINTING;
const CUPS = 'Printers are added in the CUPS web interface at port 631.';
const FIRST = 'What does the firewall block by default?';
const FOLLOW_UP = 'How do I enable it?';

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.key();
  api = client(svc.url, key);
  const up = await api.upload([
    { name: 'note.md', content: NOTE },
    // Other things to enable: the follow-up's own word alone does not tell which one "it" is.
    {
      name: 'sharing.md',
      content:
        '# Sharing\n\nTo enable printer sharing, run cupsctl --share-printers. Shared printers are announced on the network.\n',
    },
    {
      name: 'services.md',
      content: '# Services\n\nTo enable a service at boot, run systemctl enable with its name.\n',
    },
  ]);
  workspaceId = up.body.workspace.id;
  await api.waitForRun(up.body.run.id);
}, 120_000);
afterAll(async () => {
  await svc?.close();
});

type Citation = { filename: string; text: string };
const citesFirewall = (citations: Citation[]) =>
  citations.some((c) => c.filename === 'note.md' && c.text.includes('ufw enable'));

describe('a follow-up question in the extractive answer', () => {
  it('POST /v1/search/chat: the history tells what "it" is', async () => {
    const first = await api.post('/v1/search/chat', { workspaceId, q: FIRST });
    expect(first.status).toBe(200);
    const r = await api.post('/v1/search/chat', {
      workspaceId,
      q: FOLLOW_UP,
      history: [
        { role: 'user', content: FIRST },
        { role: 'assistant', content: first.body.answer },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('extractive');
    expect(citesFirewall(r.body.citations)).toBe(true);
    expect(r.body.answer).toContain('run ufw enable as root');
    expect(r.body.answer).not.toContain(CUPS);
    expect(r.body.answer).not.toContain('cupsctl');
    // The answer to the first question is not quoted again.
    expect(r.body.answer).not.toContain('blocks all incoming connections');

    // The same question without the conversation is answered otherwise.
    const alone = await api.post('/v1/search/chat', { workspaceId, q: FOLLOW_UP });
    expect(alone.body.answer).not.toBe(r.body.answer);

    // The SDK sends the history as chat's.
    const sdk = createDocSlurpClient({ apiUrl: svc.url, apiKey: key });
    const viaSdk = await sdk.chat({ workspaceId, q: FOLLOW_UP, history: [{ role: 'user', content: FIRST }] });
    expect(viaSdk.answer).toBe(r.body.answer);
  });

  it('the official openai client: the messages before the last user message are the history', async () => {
    // As chat.test.ts runs it: the client's current line, under the Node it needs.
    const script = `
      import OpenAI from 'openai';
      const openai = new OpenAI({ apiKey: process.env.KEY, baseURL: process.env.BASE, maxRetries: 0 });
      const messages = [
        { role: 'system', content: 'Answer from the workspace.' },
        { role: 'user', content: process.env.FIRST },
        { role: 'assistant', content: 'The firewall blocks all incoming connections by default. [1]' },
        { role: 'user', content: process.env.FOLLOW_UP },
      ];
      const plain = await openai.chat.completions.create({ model: 'docslurp', messages });
      const stream = await openai.chat.completions.create({ model: 'docslurp', messages, stream: true });
      let streamed = '';
      for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? '';
      const alone = await openai.chat.completions.create({
        model: 'docslurp',
        messages: [{ role: 'user', content: process.env.FOLLOW_UP }],
      });
      process.stdout.write(JSON.stringify({
        content: plain.choices[0].message.content,
        citations: plain.citations,
        streamed,
        alone: alone.choices[0].message.content,
      }));
    `;
    const out = JSON.parse(
      await runWithNode22(script, {
        KEY: key,
        BASE: `${svc.url}/v1/workspaces/${workspaceId}/openai`,
        FIRST,
        FOLLOW_UP,
      }),
    );
    expect(out.content).toContain('run ufw enable as root');
    expect(out.content).not.toContain(CUPS);
    expect(out.content).not.toContain('cupsctl');
    expect(citesFirewall(out.citations)).toBe(true);
    expect(out.streamed).toBe(out.content);
    expect(out.alone).not.toBe(out.content);
  }, 400_000);

  it('an evaluation asks a question with its history as chat does', async () => {
    const followUp = { q: FOLLOW_UP, patterns: ['ufw enable as root'], expected: ['note.md'] };
    const made = await api.post(`/v1/workspaces/${workspaceId}/question-sets`, {
      name: 'Follow-ups',
      questions: [
        { ...followUp, history: [{ role: 'user', content: FIRST }], tags: ['with-history'] },
        { ...followUp, tags: ['alone'] },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.questions[0].history).toEqual([{ role: 'user', content: FIRST }]);
    expect(made.body.questions[1].history).toEqual([]);
    const started = await api.post('/v1/evaluations', { questionSetId: made.body.id });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const done = await waitForEvaluation(api, started.body.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    const [result] = done.results;
    expect(result.tags['with-history'].chatContains).toMatchObject({ value: 1, n: 1 });
    // Alone, "it" is not the firewall: the chat route's answer without history is the baseline.
    const alone = await api.post('/v1/search/chat', { workspaceId, q: FOLLOW_UP });
    expect(result.tags.alone.chatContains.value).toBe(
      alone.body.answer.includes('ufw enable as root') ? 1 : 0,
    );
  });

  it("MCP's ask takes the conversation too", async () => {
    const mcp = new Client({ name: 'docslurp-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/v1/workspaces/${workspaceId}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const asked = (await mcp.callTool({
        name: 'ask',
        arguments: { question: FOLLOW_UP, history: [{ role: 'user', content: FIRST }] },
      })) as CallToolResult;
      const out = asked.structuredContent as { answer: string; citations: Citation[] };
      expect(out.answer).toContain('run ufw enable as root');
      expect(out.answer).not.toContain(CUPS);
      expect(citesFirewall(out.citations)).toBe(true);
    } finally {
      await mcp.close();
    }
  });
});
