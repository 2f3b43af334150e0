import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { admitQuestion } from '../../accounts/quotas.js';
import { answerQuestion, answerStream } from '../../answers/answer.js';
import { stopwatchFor } from '../../domain/stopwatch.js';
import { errors } from '../../errors.js';
import { ID_SHAPE } from '../../ids.js';
import { searchWorkspace } from '../../search/search.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { ChatResponse, errorResponses, SearchResponse } from '../schemas.js';
import { EventStream } from '../sse.js';

/** Alternatives one metadata filter key may list, and values all metadata filters may hold together. */
const MAX_VALUES_PER_KEY = 100;
const MAX_METADATA_VALUES = 1000;

export function searchRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { maxQueryChars, maxTopK } = deps.config.limits;

  const Filters = z
    .object({
      documentIds: z.array(z.string().max(100).regex(ID_SHAPE, 'not a document id')).max(1000).optional(),
      filenames: z.array(z.string().max(1000)).max(1000).optional(),
      mediaTypes: z
        .array(z.string().max(200))
        .max(100)
        .optional()
        .describe('Detected media types; "text/*" matches a family'),
      metadata: z
        .record(z.string().max(200), z.unknown())
        .optional()
        .describe(
          'Upload metadata: every key must match; an array lists alternatives (at most 100 a key, 1,000 in all)',
        ),
    })
    .strict()
    .optional()
    .describe('Restrict the search to matching documents');
  const Mode = z
    .enum(['lexical', 'vector', 'hybrid'])
    .optional()
    .describe('Default: hybrid when the workspace has vectors, else lexical');
  const SearchBody = z.object({
    workspaceId: z.string().min(1).max(100),
    q: z.string().min(1).describe(`Query text, at most ${maxQueryChars} characters`),
    topK: z.number().int().min(1).max(maxTopK).default(10),
    filters: Filters,
    mode: Mode,
    maxChunksPerDocument: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe('At most this many passages of one document'),
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
    topK: z.coerce.number().int().min(1).max(maxTopK).default(10),
    mode: Mode,
    maxChunksPerDocument: z.coerce.number().int().min(1).max(100).optional(),
  });
  const ChatBody = z.object({
    workspaceId: z.string().min(1).max(100),
    q: z.string().min(1).describe(`The question, at most ${maxQueryChars} characters`),
    topK: z.number().int().min(1).max(maxTopK).default(8).describe('Passages to draw the answer from'),
    filters: Filters,
    history: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string().max(20_000) }))
      .max(50)
      .optional()
      .describe('Earlier turns of the conversation, oldest first (used by a configured chat model)'),
    stream: z
      .boolean()
      .default(false)
      .describe(
        'Answer as server-sent events: `delta` {text}…, then `citations` {citations}, then `done` {answer, citations, kind}',
      ),
  });

  const checkLength = (q: string) => {
    if (q.length > maxQueryChars) throw errors.queryTooLong(maxQueryChars);
  };
  // Each metadata value becomes a query parameter: unbounded, a filter would run into the database's
  // limit on parameters and fail as if the database were down.
  const checkFilterValues = (filters: { metadata?: Record<string, unknown> | undefined } | undefined) => {
    let total = 0;
    for (const [key, value] of Object.entries(filters?.metadata ?? {})) {
      const count = Array.isArray(value) ? value.length : 1;
      if (count > MAX_VALUES_PER_KEY)
        throw errors.tooManyFilterValues(
          `filters.metadata.${key} has ${count} values; at most ${MAX_VALUES_PER_KEY}`,
        );
      total += count;
    }
    if (total > MAX_METADATA_VALUES)
      throw errors.tooManyFilterValues(
        `filters.metadata has ${total} values; at most ${MAX_METADATA_VALUES} in all`,
      );
  };
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
      checkLength(req.body.q);
      checkFilterValues(req.body.filters);
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
      checkLength(req.query.q);
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
      checkLength(req.body.q);
      checkFilterValues(req.body.filters);
      await admitQuestion(deps, principalOf(req));
      const asked = req.query.timings === 'true';
      const stopwatch = stopwatchFor(asked, deps.tracer);
      if (!req.body.stream) {
        const { answer, citations, kind } = await answerQuestion(deps, principalOf(req), {
          ...req.body,
          stopwatch,
        });
        return { answer, citations, kind, ...(asked && stopwatch ? { timings: stopwatch.read() } : {}) };
      }
      const abort = new AbortController();
      reply.raw.once('close', () => abort.abort());
      const answer = await answerStream(deps, principalOf(req), { ...req.body, stopwatch }, abort.signal);
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
