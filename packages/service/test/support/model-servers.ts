import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server that speaks OpenAI's embeddings and chat-completions APIs and the reranking
 * APIs of TEI (`/rerank`) and Cohere (`/v2/rerank`), for tests. Its "embedding model" maps words to
 * concept dimensions (car/automobile/vehicle share one), so vector search finds passages that share
 * no word with the query; its "reranker" scores a passage by the share of the query's concepts it
 * mentions; its "chat model" answers from the numbered sources in the prompt, the way the service's
 * prompt asks.
 */

const CONCEPTS = [
  ['car', 'cars', 'automobile', 'automobiles', 'vehicle', 'vehicles', 'fleet'],
  ['vacation', 'holiday', 'holidays', 'leave'],
  ['maintenance', 'serviced', 'service', 'repair', 'repairs'],
  ['coffee', 'espresso', 'tea'],
  ['badge', 'badges', 'identification'],
];

export function conceptVector(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const c = CONCEPTS.findIndex((group) => group.includes(word));
    if (c >= 0) v[c]! += 1;
    else {
      let h = 0;
      for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
      v[CONCEPTS.length + (h % (dimension - CONCEPTS.length))]! += 0.2;
    }
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

const conceptOf = (word: string) => {
  const c = CONCEPTS.findIndex((group) => group.includes(word));
  return c >= 0 ? `#${c}` : word;
};

/** The fake reranker's score: the share of the query's concepts (words of 4+ letters or in a concept) the text has. */
export function conceptOverlap(query: string, text: string): number {
  const words = (t: string) => t.toLowerCase().match(/[a-z]+/g) ?? [];
  const wanted = new Set(
    words(query)
      .filter((w) => w.length >= 4 || conceptOf(w) !== w)
      .map(conceptOf),
  );
  const present = new Set(words(text).map(conceptOf));
  return wanted.size ? [...wanted].filter((c) => present.has(c)).length / wanted.size : 0;
}

export interface InjectedFailure {
  status: number;
  retryAfter?: string;
}

export interface ModelServer {
  url: string;
  /** Dimension of each embedding model by name (default 16). */
  dimensions: Map<string, number>;
  embeddingRequests: { model: string; inputs: number; at: number }[];
  chatRequests: {
    model: string;
    messages: { role: string; content: string }[];
    stream: boolean;
    /** The W3C `traceparent` the service sent, when tracing is on. */
    traceparent: string | undefined;
  }[];
  /** Reranking requests as received (path and JSON body). */
  rerankRequests: { path: string; body: Record<string, unknown> }[];
  maxInFlight: number;
  /** Failures served (in order) before normal answers. */
  failures: InjectedFailure[];
  /** Holds every embeddings request for `model` until the returned function is called. */
  hold(model: string): () => void;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The chat model's reply: the first sentence of the source sharing most words with the question. */
function reply(messages: { role: string; content: string }[]): string {
  const last = messages.at(-1)?.content ?? '';
  const question = /Question: (.*)$/s.exec(last)?.[1] ?? '';
  if (/mars/i.test(question)) return 'NOT_IN_WORKSPACE';
  // Each source is "[n] (where)" and its passage, up to the next source or the question.
  const body = last.replace(/\n\nQuestion: .*$/s, '');
  const sources = body
    .split(/^(?=\[\d+\] \()/m)
    .map((block) => /^\[(\d+)\] \([^)]*\)\n([\s\S]*)$/.exec(block))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({
      n: m[1]!,
      text: m[2]!
        .split('\n')
        .filter((l) => l.trim() && !l.startsWith('#'))
        .join(' ')
        .trim(),
    }));
  const words = new Set(question.toLowerCase().match(/[a-z]{4,}/g) ?? []);
  let best = sources[0];
  let bestScore = -1;
  for (const s of sources) {
    const score = (s.text.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((w) => words.has(w)).length;
    if (score > bestScore) [best, bestScore] = [s, score];
  }
  if (!best) return 'NOT_IN_WORKSPACE';
  const sentence = /^.*?[.!?](?=\s|$)/.exec(best.text)?.[0] ?? best.text;
  const turns = messages.filter((m) => m.role === 'assistant').length;
  // An invented source number: the service must drop it.
  return `${sentence.replace(/[.!?]$/, '')} [${best.n}][${sources.length + 5}].${turns ? ` (turn ${turns + 1})` : ''}`;
}

export async function startModelServer(): Promise<ModelServer> {
  let inFlight = 0;
  const holds = new Map<string, { promise: Promise<void>; release: () => void }>();
  const state: Omit<ModelServer, 'url' | 'close' | 'hold'> = {
    dimensions: new Map(),
    embeddingRequests: [],
    chatRequests: [],
    rerankRequests: [],
    maxInFlight: 0,
    failures: [],
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readJson(req);
      const failure = state.failures.shift();
      if (failure) {
        send(
          res,
          failure.status,
          { error: { message: `injected ${failure.status}`, type: 'server_error' } },
          failure.retryAfter ? { 'retry-after': failure.retryAfter } : {},
        );
        return;
      }
      if (req.url === '/v1/embeddings') {
        const model = String(body.model);
        const input = body.input as string[];
        state.embeddingRequests.push({ model, inputs: input.length, at: Date.now() });
        inFlight++;
        state.maxInFlight = Math.max(state.maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 20));
        await holds.get(model)?.promise;
        inFlight--;
        if (model === 'bad-request') {
          send(res, 400, { error: { message: 'unknown model', type: 'invalid_request_error' } });
          return;
        }
        const dim = state.dimensions.get(model) ?? 16;
        send(res, 200, {
          object: 'list',
          model,
          data: input
            .map((t, index) => ({ object: 'embedding', index, embedding: conceptVector(t, dim) }))
            .reverse(),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        });
        return;
      }
      if (req.url === '/rerank' || req.url === '/v2/rerank') {
        state.rerankRequests.push({ path: req.url, body });
        const query = String(body.query);
        const texts = (req.url === '/rerank' ? body.texts : body.documents) as string[];
        // Both APIs list the results best first.
        const ranked = texts
          .map((t, index) => ({ index, score: conceptOverlap(query, t) }))
          .sort((a, b) => b.score - a.score);
        if (req.url === '/rerank') send(res, 200, ranked);
        else
          send(res, 200, {
            id: 'rr',
            results: ranked.map((r) => ({ index: r.index, relevance_score: r.score })),
            meta: { billed_units: { search_units: 1 } },
          });
        return;
      }
      if (req.url === '/v1/chat/completions') {
        const messages = body.messages as { role: string; content: string }[];
        state.chatRequests.push({
          model: String(body.model),
          messages,
          stream: body.stream === true,
          traceparent: typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined,
        });
        const text = reply(messages);
        if (/explode/i.test(messages.at(-1)?.content ?? '')) {
          send(res, 500, { error: { message: 'model crashed', type: 'server_error' } });
          return;
        }
        const usage = { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 };
        if (!body.stream) {
          send(res, 200, {
            id: 'x',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
            usage,
          });
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < text.length; i += 3) {
          const chunk = {
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta: { content: text.slice(i, i + 3) } }],
          };
          res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        }
        res.write(`data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      send(res, 404, { error: { message: 'not found' } });
    })().catch((err: unknown) => send(res, 500, { error: { message: String(err) } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/v1`,
    hold(model: string) {
      let release!: () => void;
      const promise = new Promise<void>((r) => {
        release = r;
      });
      holds.set(model, { promise, release });
      return () => {
        holds.delete(model);
        release();
      };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}
