import type { FastifyError, FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { answerQuestion, answerStream } from '../../answers/answer.js';
import type { AnswerCitation } from '../../answers/extractive.js';
import { getWorkspace } from '../../documents/documents.js';
import type { ChatMessage, ChatUsage } from '../../domain/ports.js';
import { stopwatchFor } from '../../domain/stopwatch.js';
import { QUOTAS } from '../../domain/types.js';
import { AppError, errors } from '../../errors.js';
import { randomToken } from '../../ids.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { toAppError } from '../errors.js';
import { SECURITY } from '../openapi.js';
import { AnswerCitation as AnswerCitationSchema, AnswerKind } from '../schemas.js';
import { EventStream } from '../sse.js';

/** The one model this endpoint serves: answers grounded in the workspace. */
export const WORKSPACE_MODEL = 'docslurp';

const OPENAI_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** An error in OpenAI's shape, so OpenAI clients raise their usual typed errors. */
export function openAiError(e: AppError, requestId: string) {
  return {
    error: {
      message: e.message,
      // OpenAI's own type for an exhausted quota, which its clients tell from a rate limit.
      type:
        e.code === 'quota_exceeded' ? 'insufficient_quota' : (OPENAI_ERROR_TYPES[e.status] ?? 'api_error'),
      param: null,
      code: e.code,
      request_id: requestId,
      ...(e.details.quota ? { quota: e.details.quota, limit: e.details.limit, used: e.details.used } : {}),
    },
  };
}

// null is allowed as OpenAI clients send it (an assistant turn with tool calls); in OpenAPI 3.0 a
// `nullable` needs a type beside it, so it sits on the string.
const Content = z.union([
  z.string().nullable(),
  z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough()),
]);

/** Errors on this path, in OpenAI's shape (see openAiError). */
const OpenAiErrorBody = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      param: z.string().nullable(),
      code: z.string().describe("DocSlurp's error code (docs/api.md)"),
      request_id: z.string(),
      quota: z.enum(QUOTAS).optional().describe('quota_exceeded only: the quota exceeded'),
      limit: z.number().int().optional().describe("quota_exceeded only: the quota's limit"),
      used: z.number().int().optional().describe('quota_exceeded only: what the account had used of it'),
    }),
  })
  .meta({ id: 'OpenAiError' });
const openAiErrors = {
  400: OpenAiErrorBody,
  401: OpenAiErrorBody,
  403: OpenAiErrorBody,
  404: OpenAiErrorBody,
  429: OpenAiErrorBody,
};

const Models = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() }),
  ),
});

const Usage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
});

const Completion = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string(),
          refusal: z.string().nullable(),
        }),
        logprobs: z.null(),
        finish_reason: z.string(),
      }),
    ),
    usage: Usage,
    citations: z.array(AnswerCitationSchema).describe('Extension: the passages the [n] markers cite'),
    kind: AnswerKind.describe('Extension: how the answer was made (extractive, model or declined)'),
  })
  .meta({ id: 'ChatCompletion' });

const CompletionBody = z.object({
  model: z.string().min(1).max(200),
  messages: z
    .array(
      z.object({
        role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
        content: Content.optional(),
      }),
    )
    .min(1)
    .max(100),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  n: z.number().int().min(1).max(1).optional().describe('Only 1 is supported'),
  max_tokens: z.number().int().optional(),
  max_completion_tokens: z.number().int().optional(),
  temperature: z.number().optional(),
  top_k: z.number().int().min(1).max(50).optional().describe('Extension: passages to draw the answer from'),
});

function textOf(content: z.infer<typeof Content> | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');
}

/** A rough token count (about four characters a token) for answers that no model wrote. */
const estimateTokens = (text: string) => Math.ceil(text.length / 4);

function usageOf(
  usage: ChatUsage | undefined,
  question: string,
  citations: AnswerCitation[],
  answer: string,
) {
  const prompt = usage?.promptTokens ?? estimateTokens(question + citations.map((c) => c.text).join(' '));
  const completion = usage?.completionTokens ?? estimateTokens(answer);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/**
 * The OpenAI-compatible workspace chat: with `baseURL` set to `/v1/workspaces/{id}/openai`, OpenAI
 * clients get grounded answers from the workspace, plain or streamed, with the citations in an extra
 * top-level `citations` field (in the last chunk of a stream). Errors on this path have OpenAI's shape.
 */
export function openAiRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.register(async (scope) => {
    scope.setErrorHandler((err: FastifyError, request, reply) => {
      const e = toAppError(err);
      if (e.status >= 500) request.log.error({ err }, 'request failed');
      for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
      return reply.code(e.status).type('application/json; charset=utf-8').send(openAiError(e, request.id));
    });
    const api = scope.withTypeProvider<ZodTypeProvider>();
    const Params = z.object({ workspaceId: z.string().min(1).max(100) });
    const common = { tags: ['openai'], security: SECURITY.write };

    api.get(
      '/v1/workspaces/:workspaceId/openai/models',
      {
        onRequest: authorize(deps, 'search'),
        schema: {
          ...common,
          operationId: 'listOpenAiModels',
          security: SECURITY.read,
          summary: 'Models of the OpenAI-compatible workspace chat',
          params: Params,
          response: { 200: Models, ...openAiErrors },
        },
      },
      async (req) => {
        await getWorkspace(deps, principalOf(req), req.params.workspaceId);
        return {
          object: 'list' as const,
          data: [{ id: WORKSPACE_MODEL, object: 'model' as const, created: 0, owned_by: 'docslurp' }],
        };
      },
    );

    api.post(
      '/v1/workspaces/:workspaceId/openai/chat/completions',
      {
        onRequest: authorize(deps, 'search'),
        schema: {
          ...common,
          operationId: 'createOpenAiChatCompletion',
          summary: 'OpenAI-compatible chat completion grounded in the workspace (plain or streamed)',
          params: Params,
          body: CompletionBody,
          response: {
            200: {
              description:
                'A chat.completion; with stream: true, server-sent chat.completion.chunk events ending with data: [DONE] (the last chunk carries the citations)',
              content: {
                'application/json': { schema: Completion },
                'text/event-stream': { schema: z.string() },
              },
            },
            ...openAiErrors,
          },
        },
      },
      async (req, reply) => {
        const body = req.body;
        const turns = body.messages
          .filter((m) => m.role === 'user' || m.role === 'assistant')
          .map((m) => ({ role: m.role as 'user' | 'assistant', content: textOf(m.content) }));
        const last = turns.at(-1);
        if (last?.role !== 'user' || !last.content.trim()) {
          throw errors.invalidRequest('The last message must be a user message with the question.');
        }
        const request = {
          workspaceId: req.params.workspaceId,
          q: last.content,
          topK: body.top_k,
          counted: true,
          history: turns.slice(0, -1) as ChatMessage[],
          // Only the tracer reads the stages here: this API has no `timings`.
          stopwatch: stopwatchFor(false, deps.tracer),
        };
        const id = `chatcmpl-${randomToken(12)}`;
        const created = Math.floor(Date.now() / 1000);
        const model = body.model;

        if (!body.stream) {
          const a = await answerQuestion(deps, principalOf(req), request);
          return {
            id,
            object: 'chat.completion' as const,
            created,
            model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant' as const, content: a.answer, refusal: null },
                logprobs: null,
                finish_reason: 'stop',
              },
            ],
            usage: usageOf(a.usage, request.q, a.citations, a.answer),
            citations: a.citations.map((c) => AnswerCitationSchema.parse(c)),
            kind: a.kind,
          };
        }

        const abort = new AbortController();
        reply.raw.once('close', () => abort.abort());
        const answer = await answerStream(deps, principalOf(req), request, abort.signal);
        let next = await answer.next();
        const stream = EventStream.open(req, reply);
        const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
          stream.data(
            JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra }),
          );
        try {
          chunk([
            { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
          ]);
          while (!next.done) {
            chunk([{ index: 0, delta: { content: next.value.delta }, logprobs: null, finish_reason: null }]);
            next = await answer.next();
          }
          const a = next.value;
          request.stopwatch?.lap(deps.chatModel ? 'model' : 'answer');
          const citations = a.citations.map((c) => AnswerCitationSchema.parse(c));
          chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], {
            citations,
            kind: a.kind,
          });
          if (body.stream_options?.include_usage) {
            chunk([], { usage: usageOf(a.usage, request.q, a.citations, a.answer), citations });
          }
        } catch (err) {
          const e = err instanceof AppError ? err : errors.internal();
          if (!(err instanceof AppError)) req.log.error({ err }, 'stream failed');
          stream.data(JSON.stringify(openAiError(e, req.id)));
        }
        stream.data('[DONE]');
        stream.end();
      },
    );
  });
}
