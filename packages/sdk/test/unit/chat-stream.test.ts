import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnswerCitation,
  ConnectionError,
  createDocSlurpClient,
  DocSlurpError,
  StreamError,
} from '../../src/index.js';
import { EventStreamParser, type ServerSentEvent } from '../../src/sse.js';
import { scriptedFetch } from '../support/fake-fetch.js';

const citation = {
  n: 1,
  text: 'Every employee receives 25 days of paid vacation per year.',
  documentId: 'doc_1',
  filename: 'handbook.pdf',
  sourceUrl: null,
  mediaType: 'application/pdf',
  page: 2,
  pageEnd: 2,
  charStart: 10,
  charEnd: 68,
  chunkId: 'doc_1:0',
  headingPath: [],
  score: 3.2,
};
const pieces = ['Every employee receives 25 days ', 'of paid vacation per year. [1] ', 'Ünïcödé ✓ 🎉.'];
const answer = pieces.join('');
const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const fullStream = [
  ...pieces.map((text) => sse('delta', { text })),
  sse('citations', { citations: [citation] }),
  sse('done', { answer, citations: [citation] }),
].join('');

/** A response whose body arrives in the given byte chunks, recording whether the reader cancelled it. */
function chunkedResponse(chunks: Uint8Array[], opts: { failAfter?: boolean } = {}) {
  const state = { cancelled: false };
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else if (opts.failAfter) controller.error(new TypeError('terminated'));
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return {
    response: new Response(body, {
      headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_s' },
    }),
    state,
  };
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let last = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.slice(last, p));
    last = p;
  }
  return out;
}

function streamingClient(response: Response) {
  const fake = scriptedFetch(response);
  return {
    client: createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch: fake.fetch }),
    requests: fake.requests,
  };
}

describe('EventStreamParser', () => {
  const parseAll = (chunks: string[]) => {
    const parser = new EventStreamParser();
    return chunks.flatMap((c) => parser.push(c));
  };

  it('reads events, multi-line data, comments and the default event type', () => {
    const text =
      ': keep-alive\n\nevent: delta\ndata: {"text":"a"}\n\ndata: line 1\ndata:line 2\n\nid: 7\nretry: 10\n\n';
    expect(parseAll([text])).toEqual([
      { event: 'delta', data: '{"text":"a"}' },
      { event: 'message', data: 'line 1\nline 2' },
    ]);
  });

  it('accepts LF, CRLF and CR line endings, also when a CRLF is split between chunks', () => {
    const expected = [
      { event: 'a', data: '1' },
      { event: 'b', data: '2' },
    ];
    expect(parseAll(['event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\r'])).toEqual(expected);
    expect(parseAll(['event: a\r', '\ndata: 1\r', '\n\r', '\nevent: b\r\ndata: 2\r\n\r', '\n'])).toEqual(
      expected,
    );
  });

  it('drops an event that the stream cut off before its blank line', () => {
    expect(parseAll(['event: delta\ndata: {"text":"a"}\n\nevent: done\ndata: {"ans'])).toEqual([
      { event: 'delta', data: '{"text":"a"}' },
    ]);
  });

  it('gives the same events however the text is split into chunks', () => {
    const whole = parseAll([fullStream]);
    expect(whole.map((e: ServerSentEvent) => e.event)).toEqual([
      'delta',
      'delta',
      'delta',
      'citations',
      'done',
    ]);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 30 }), (cuts) => {
        const points = [...new Set(cuts.map((c) => c % (fullStream.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let last = 0;
        for (const p of [...points, fullStream.length]) {
          chunks.push(fullStream.slice(last, p));
          last = p;
        }
        expect(parseAll(chunks)).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });
});

describe('chat({ stream: true })', () => {
  it('yields the deltas with for await, then exposes the answer and citations', async () => {
    const { response } = chunkedResponse([new TextEncoder().encode(fullStream)]);
    const { client, requests } = streamingClient(response);
    const stream = await client.chat({ workspaceId: 'ws_1', q: 'vacation?', stream: true });
    expect(requests[0]!.headers.get('accept')).toBe('text/event-stream');
    expect(JSON.parse(String(requests[0]!.body))).toEqual({
      workspaceId: 'ws_1',
      q: 'vacation?',
      stream: true,
    });
    // Before the end there is nothing to read, and saying so beats an undefined the type must allow.
    expect(() => stream.citations).toThrow(expect.objectContaining({ code: 'stream_not_finished' }));
    expect(() => stream.answer).toThrow(/after the for await loop/);
    const texts: string[] = [];
    for await (const delta of stream) texts.push(delta.text);
    expect(texts).toEqual(pieces);
    // Typed as defined: these assignments do not compile if either may be undefined (npm run typecheck).
    const finalText: string = stream.answer;
    const cited: AnswerCitation[] = stream.citations;
    expect(finalText).toBe(answer);
    expect(cited).toEqual([citation]);
    expect(stream.requestId).toBe('req_s');
    await expect(stream.finalAnswer()).resolves.toEqual({ answer, citations: [citation] });
  });

  it('parses events and multi-byte characters split at every byte position', async () => {
    const bytes = new TextEncoder().encode(fullStream);
    for (let cut = 1; cut < bytes.length; cut++) {
      const { response } = chunkedResponse([bytes.slice(0, cut), bytes.slice(cut)]);
      const stream = await streamingClient(response).client.chat({ workspaceId: 'w', q: 'q', stream: true });
      let text = '';
      for await (const delta of stream) text += delta.text;
      expect(text).toBe(answer);
      expect(stream.answer).toBe(answer);
    }
  });

  it('parses random byte chunkings', async () => {
    const bytes = new TextEncoder().encode(fullStream);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), async (cuts) => {
        const { response } = chunkedResponse(splitAt(bytes, cuts));
        const stream = await streamingClient(response).client.chat({
          workspaceId: 'w',
          q: 'q',
          stream: true,
        });
        const texts: string[] = [];
        for await (const delta of stream) texts.push(delta.text);
        expect(texts).toEqual(pieces);
        expect(stream.citations).toEqual([citation]);
      }),
      { numRuns: 200 },
    );
  });

  it('finalAnswer() reads the whole stream without iterating', async () => {
    const { response } = chunkedResponse([new TextEncoder().encode(fullStream)]);
    const stream = await streamingClient(response).client.chat({ workspaceId: 'w', q: 'q', stream: true });
    await expect(stream.finalAnswer()).resolves.toEqual({ answer, citations: [citation] });
  });

  it('throws a StreamError with the server’s code and request id on an error event', async () => {
    const body =
      sse('delta', { text: 'Every ' }) +
      sse('error', {
        error: { code: 'internal_error', message: 'An internal error occurred.', requestId: 'req_err' },
      });
    const { response } = chunkedResponse([new TextEncoder().encode(body)]);
    const stream = await streamingClient(response).client.chat({ workspaceId: 'w', q: 'q', stream: true });
    const texts: string[] = [];
    const error = await (async () => {
      for await (const delta of stream) texts.push(delta.text);
    })().catch((e: unknown) => e);
    expect(texts).toEqual(['Every ']);
    expect(error).toBeInstanceOf(StreamError);
    expect(error).toMatchObject({
      code: 'internal_error',
      requestId: 'req_err',
      message: 'An internal error occurred.',
      status: undefined,
    });
    await expect(stream.finalAnswer()).rejects.toBe(error);
  });

  it('throws a ConnectionError when the stream ends before its done event', async () => {
    const { response } = chunkedResponse([new TextEncoder().encode(sse('delta', { text: 'Every ' }))]);
    const stream = await streamingClient(response).client.chat({ workspaceId: 'w', q: 'q', stream: true });
    await expect(stream.finalAnswer()).rejects.toBeInstanceOf(ConnectionError);
  });

  it('throws a ConnectionError when the connection breaks mid-stream', async () => {
    const { response } = chunkedResponse([new TextEncoder().encode(sse('delta', { text: 'Every ' }))], {
      failAfter: true,
    });
    const stream = await streamingClient(response).client.chat({ workspaceId: 'w', q: 'q', stream: true });
    const error = await stream.finalAnswer().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain('terminated');
  });

  it('closes the connection when the caller stops iterating early', async () => {
    const events = fullStream.split(/(?<=\n\n)/);
    expect(events).toHaveLength(5);
    const { response, state } = chunkedResponse(events.map((s) => new TextEncoder().encode(s)));
    const stream = await streamingClient(response).client.chat({ workspaceId: 'w', q: 'q', stream: true });
    for await (const delta of stream) {
      expect(delta.text).toBe(pieces[0]);
      break;
    }
    expect(state.cancelled).toBe(true);
    await expect(stream.finalAnswer()).rejects.toMatchObject({ code: 'stream_stopped' });
  });

  it('can be iterated only once', async () => {
    const { response } = chunkedResponse([new TextEncoder().encode(fullStream)]);
    const stream = await streamingClient(response).client.chat({ workspaceId: 'w', q: 'q', stream: true });
    for await (const _ of stream) {
      // drain
    }
    expect(() => stream[Symbol.asyncIterator]()).toThrow(DocSlurpError);
  });

  it('ends with the caller’s reason when the caller aborts mid-stream', async () => {
    const controller = new AbortController();
    const fake = scriptedFetch(({ signal }) => {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(sse('delta', { text: 'Every ' })));
          // As fetch does: aborting the request errors the body being read.
          signal.addEventListener('abort', () => c.error(signal.reason));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    const client = createDocSlurpClient({ apiUrl: 'http://svc.test', apiKey: 'k', fetch: fake.fetch });
    const stream = await client.chat(
      { workspaceId: 'w', q: 'q', stream: true },
      { signal: controller.signal },
    );
    const error = await (async () => {
      for await (const _ of stream) controller.abort(new Error('user left'));
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ message: 'user left' });
  });
});
