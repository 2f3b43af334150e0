import { describe, expect, it } from 'vitest';
import { NOT_FOUND_ANSWER } from '../../src/answers/extractive.js';
import { buildMessages, composeLlmAnswer, NOT_IN_SOURCES, streamLlmAnswer } from '../../src/answers/llm.js';
import type { ChatModel, ChatRequest } from '../../src/domain/ports.js';
import type { SearchHit } from '../../src/domain/types.js';

const hit = (n: number, text: string): SearchHit => ({
  text,
  score: 1,
  citation: {
    documentId: `doc_${n}`,
    filename: `f${n}.pdf`,
    sourceUrl: null,
    mediaType: 'application/pdf',
    page: n,
    pageEnd: n,
    charStart: 0,
    charEnd: text.length,
    chunkId: `doc_${n}:0`,
    headingPath: ['Policies'],
    score: 1,
    source: null,
    sourceItem: null,
    version: 1,
  },
});
const hits = [hit(1, 'Employees get 25 vacation days.'), hit(2, 'Unused days expire in March.')];

/** A model that replies with fixed text, streamed in the given pieces. */
function scripted(pieces: string[]): ChatModel & { seen: ChatRequest[] } {
  const seen: ChatRequest[] = [];
  return {
    model: 'scripted',
    seen,
    async complete(req) {
      seen.push(req);
      return { text: pieces.join(''), usage: { promptTokens: 10, completionTokens: 5 } };
    },
    async *stream(req) {
      seen.push(req);
      for (const p of pieces) yield { delta: p };
      yield { usage: { promptTokens: 10, completionTokens: 5 } };
    },
  };
}

async function drain(gen: AsyncGenerator<{ delta: string }, unknown>) {
  const deltas: string[] = [];
  let r = await gen.next();
  while (!r.done) {
    deltas.push(r.value.delta);
    r = await gen.next();
  }
  return { deltas, result: r.value as { answer: string; citations: { n: number }[] } };
}

describe('LLM answers', () => {
  it('numbers the sources in the prompt and keeps the conversation history', () => {
    const m = buildMessages('How many days?', hits, [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
    ]);
    expect(m.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(m[3]!.content).toContain('[1] (f1.pdf, page 1, Policies)\nEmployees get 25 vacation days.');
    expect(m[3]!.content).toContain('[2] (f2.pdf, page 2, Policies)');
    expect(m[3]!.content).toMatch(/Question: How many days\?$/);
    expect(m[0]!.content).toContain(NOT_IN_SOURCES);
  });

  it('cites only the sources the answer names', async () => {
    const a = await composeLlmAnswer(scripted(['You get 25 days [1][9].']), 'q', hits, []);
    expect(a.answer).toBe('You get 25 days [1].');
    expect(a.citations.map((c) => [c.n, c.documentId])).toEqual([[1, 'doc_1']]);
    expect(a.usage).toEqual({ promptTokens: 10, completionTokens: 5 });
  });

  it('answers "not in the workspace" when the model says the sources lack the answer, or nothing was found', async () => {
    expect(await composeLlmAnswer(scripted([NOT_IN_SOURCES]), 'q', hits, [])).toMatchObject({
      answer: NOT_FOUND_ANSWER,
      citations: [],
    });
    const model = scripted(['unused']);
    expect((await composeLlmAnswer(model, 'q', [], [])).answer).toBe(NOT_FOUND_ANSWER);
    expect(model.seen).toHaveLength(0);
  });

  it('streams checked text: a marker split across deltas is held until complete, bad ones vanish', async () => {
    const { deltas, result } = await drain(
      streamLlmAnswer(
        scripted(['You get ', '25 days [', '1]', ' and they expire [', '7]', ' in March [2].']),
        'q',
        hits,
        [],
      ),
    );
    expect(deltas.join('')).toBe(result.answer);
    expect(result.answer).toBe('You get 25 days [1] and they expire in March [2].');
    expect(deltas.some((d) => d.includes('[7') || d.endsWith('['))).toBe(false);
    expect(result.citations.map((c) => c.n)).toEqual([1, 2]);
  });

  it('streams the "not in the workspace" answer when the model declines', async () => {
    const { deltas, result } = await drain(
      streamLlmAnswer(scripted(['NOT_IN', '_WORK', 'SPACE']), 'q', hits, []),
    );
    expect(deltas).toEqual([NOT_FOUND_ANSWER]);
    expect(result).toMatchObject({ answer: NOT_FOUND_ANSWER, citations: [], kind: 'declined' });
  });
});
