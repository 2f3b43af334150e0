import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { answerQuestion, answerStream } from '../../answers/answer.js';
import { stopwatchFor } from '../../domain/stopwatch.js';
import {
  MaxChunksPerDocumentShape,
  REQUEST_BOUNDS,
  REQUEST_DEFAULTS,
  SearchFiltersShape,
  topKShape,
} from '../../search/request.js';
import { searchWorkspace } from '../../search/search.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { ChatResponse, errorResponses, SearchResponse } from '../schemas.js';
import { EventStream } from '../sse.js';

export function searchRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const limits = deps.config.limits;
  const { maxQueryChars } = limits;
  const Mode = z
    .enum(['lexical', 'vector', 'hybrid'])
    .optional()
    .describe('Default: hybrid when the workspace has vectors, else lexical');
  const SearchBody = z.object({
    workspaceId: z.string().min(1).max(100),
    q: z.string().min(1).describe(`Query text, at most ${maxQueryChars} characters`),
    topK: topKShape(limits, REQUEST_DEFAULTS.searchTopK),
    filters: SearchFiltersShape,
    mode: Mode,
    maxChunksPerDocument: MaxChunksPerDocumentShape.optional(),
  });
  const TimingsQuery = z.object({
    timings: z
      .enum(['true', 'false'])
      .optional()
      .describe('true: the response says how many milliseconds each stage took (`timings`)'),
  });
  const SearchQuery = TimingsQuery.extend({
    workspaceId: z.string().min(1).max(100),
    q: z.string().min(1),
    topK: topKShape(limits, REQUEST_DEFAULTS.searchTopK, true),
    mode: Mode,
    maxChunksPerDocument: z.coerce.number().int().min(1).max(REQUEST_BOUNDS.maxChunksPerDocument).optional(),
  });
  const ChatBody = z.object({
    workspaceId: z.string().min(1).max(100),
    q: z.string().min(1).describe(`The question, at most ${maxQueryChars} characters`),
    topK: topKShape(limits, REQUEST_DEFAULTS.answerTopK).describe('Passages to draw the answer from'),
    filters: SearchFiltersShape,
    history: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string().max(20_000) }))
      .max(50)
      .optional()
      .describe(
        'Earlier turns of the conversation, oldest first: a follow-up question ("How do I enable it?") borrows the earlier user turns\' words to find its passages; a configured chat model reads every turn',
      ),
    stream: z
      .boolean()
      .default(false)
      .describe(
        'Answer as server-sent events: `delta` {text}…, then `citations` {citations}, then `done` {answer, citations, kind}',
      ),
  });

  const common = { tags: ['search'], security: SECURITY.write };

  api.post(
    '/v1/search',
    {
      onRequest: authorize(deps, 'search'),
      schema: {
        ...common,
        operationId: 'search',
        summary: 'Relevant passages of a workspace, each with its citation',
        querystring: TimingsQuery,
        body: SearchBody,
        response: { 200: SearchResponse, ...errorResponses },
      },
    },
    async (req) => {
      const asked = req.query.timings === 'true';
      const stopwatch = stopwatchFor(asked, deps.tracer);
      const results = await searchWorkspace(deps, principalOf(req), { ...req.body, stopwatch });
      return { results, ...(asked && stopwatch ? { timings: stopwatch.read() } : {}) };
    },
  );

  api.get(
    '/v1/search',
    {
      onRequest: authorize(deps, 'search'),
      schema: {
        ...common,
        operationId: 'searchByQuery',
        security: SECURITY.read,
        summary: 'Search with query parameters',
        querystring: SearchQuery,
        response: { 200: SearchResponse, ...errorResponses },
      },
    },
    async (req) => {
      const { timings, ...query } = req.query;
      const asked = timings === 'true';
      const stopwatch = stopwatchFor(asked, deps.tracer);
      const results = await searchWorkspace(deps, principalOf(req), { ...query, stopwatch });
      return { results, ...(asked && stopwatch ? { timings: stopwatch.read() } : {}) };
    },
  );

  api.post(
    '/v1/search/chat',
    {
      onRequest: authorize(deps, 'search'),
      schema: {
        ...common,
        operationId: 'chat',
        summary:
          'A grounded answer with citations (with stream: true, server-sent events: delta, citations, done)',
        querystring: TimingsQuery,
        body: ChatBody,
        response: {
          200: {
            description:
              'The answer with its citations; with stream: true, server-sent events instead: `delta` ({"text"}) pieces of the answer as they come, then `citations` ({"citations"}), then `done` ({"answer", "citations"}); a failure after the stream opened is an `error` event ({"error": {"code", "message", "requestId"}})',
            content: {
              'application/json': { schema: ChatResponse },
              'text/event-stream': {
                schema: z.string().describe('Server-sent events: delta, citations, done'),
              },
            },
          },
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      const asked = req.query.timings === 'true';
      const stopwatch = stopwatchFor(asked, deps.tracer);
      if (!req.body.stream) {
        const { answer, citations, kind } = await answerQuestion(deps, principalOf(req), {
          ...req.body,
          stopwatch,
          counted: true,
        });
        return { answer, citations, kind, ...(asked && stopwatch ? { timings: stopwatch.read() } : {}) };
      }
      const abort = new AbortController();
      reply.raw.once('close', () => abort.abort());
      const answer = await answerStream(
        deps,
        principalOf(req),
        { ...req.body, stopwatch, counted: true },
        abort.signal,
      );
      // The first piece is awaited before the stream opens, so that failures of retrieval or of the
      // model's first response still get a normal JSON error.
      let next = await answer.next();
      const stream = EventStream.open(req, reply);
      try {
        while (!next.done) {
          stream.send('delta', { text: next.value.delta });
          next = await answer.next();
        }
        const { answer: text, citations, kind } = next.value;
        stream.send('citations', { citations });
        // The stream's stages end with its last piece: `done` carries them.
        if (stopwatch) stopwatch.lap(deps.chatModel ? 'model' : 'answer');
        stream.send('done', {
          answer: text,
          citations,
          kind,
          ...(asked && stopwatch ? { timings: stopwatch.read() } : {}),
        });
      } catch (err) {
        stream.fail(err);
      }
      stream.end();
    },
  );
}
