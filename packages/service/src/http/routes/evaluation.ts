import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../errors.js';
import {
  cancelEvaluation,
  compareEvaluations,
  createEvaluation,
  deleteEvaluation,
  evaluationDepsOf,
  evaluationOutcomes,
  getEvaluation,
  listEvaluations,
} from '../../evaluation/evaluations.js';
import {
  createQuestionSet,
  deleteQuestionSet,
  getQuestionSet,
  listQuestionSets,
  type QuestionsInput,
} from '../../evaluation/question-sets.js';
import { questionFormatOf } from '../../evaluation/questions.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import {
  Evaluation,
  EvaluationComparison,
  EvaluationCreate,
  EvaluationOutcome,
  evaluationView,
  outcomeView,
  QuestionSet,
  QuestionSetCreate,
  QuestionSetSummary,
  questionSetView,
  summaryView,
} from '../evaluation-views.js';
import { uploadForm } from '../multipart.js';
import { SECURITY } from '../openapi.js';
import { errorResponses } from '../schemas.js';

const WorkspaceParams = z.object({ id: z.string().min(1).max(100) });
const Params = z.object({ id: z.string().min(1).max(100) });

/**
 * A question file is text, far below an upload's limit (5,000 questions are 1–2 MB), and read whole
 * to be checked line by line.
 */
export const QUESTION_FILE_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The set's name and questions from the request: a JSON body `{name, questions}`, or a multipart
 * form with a file part (JSONL, CSV or JSON) and an optional `name` (else the file's name).
 */
async function questionsFrom(request: FastifyRequest): Promise<{ name: string; questions: QuestionsInput }> {
  if (!request.isMultipart()) {
    const parsed = QuestionSetCreate.safeParse(request.body);
    if (!parsed.success)
      throw errors.invalidRequest(
        `Invalid body: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}.`,
      );
    return { name: parsed.data.name, questions: { kind: 'list', questions: parsed.data.questions } };
  }
  let name: string | undefined;
  let file: { filename: string; mediaType: string | null; content: Buffer } | undefined;
  for await (const part of uploadForm(request)) {
    if (part.kind === 'field') {
      if (part.name === 'name') name = part.value.trim();
      continue;
    }
    if (file) {
      part.stream.resume();
      throw errors.invalidRequest('Send one question file a request.');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of part.stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > QUESTION_FILE_MAX_BYTES) {
        part.stream.resume();
        throw errors.fileTooLarge(part.filename, QUESTION_FILE_MAX_BYTES);
      }
      chunks.push(chunk);
    }
    file = { filename: part.filename, mediaType: part.mediaType, content: Buffer.concat(chunks) };
  }
  if (!file) throw errors.invalidRequest('Send the question file in the multipart field "file".');
  const format = questionFormatOf(file.filename, file.mediaType ?? undefined);
  if (!format)
    throw errors.invalidRequest(
      `"${file.filename}" is not a question file: name it .jsonl, .csv or .json (or send its media type).`,
    );
  let content: string;
  try {
    content = new TextDecoder('utf-8', { fatal: true }).decode(file.content);
  } catch {
    throw errors.invalidQuestions([{ line: 1, message: 'the file is not UTF-8 text' }], 1);
  }
  const fallback = file.filename.replace(/\.[^.]*$/, '') || 'Questions';
  return { name: (name || fallback).slice(0, 200), questions: { kind: 'file', format, content } };
}

const CompareParams = z.object({ id: z.string().min(1).max(100), other: z.string().min(1).max(100) });
const OutcomeQuery = z.object({
  configuration: z.string().max(100).optional().describe("One configuration's, by name (default: every one)"),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** A workspace's question sets and their evaluations (docs/evaluation.md). */
export function evaluationRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const read = { tags: ['evaluation'], security: SECURITY.read };
  const write = { tags: ['evaluation'], security: SECURITY.write };
  // A set changes the workspace (ingest, as sources do); reading one is for whoever evaluates
  // (search, as the evaluation asks through search and chat) or reads what a workspace holds.
  const writer = authorize(deps, 'ingest');
  const reader = authorize(deps, ['search', 'artifacts']);

  api.post(
    '/v1/workspaces/:id/question-sets',
    {
      onRequest: writer,
      schema: {
        ...write,
        operationId: 'createQuestionSet',
        summary:
          'Store a question set: JSON {name, questions}, or a JSONL, CSV or JSON file (multipart "file")',
        params: WorkspaceParams,
        // The body is read by the handler (JSON or multipart): servedDocument describes both forms.
        response: { 201: QuestionSet, ...errorResponses },
      },
    },
    async (request, reply) => {
      const input = await questionsFrom(request);
      const set = await createQuestionSet(deps, principalOf(request), request.params.id, input);
      reply.code(201);
      return questionSetView(set);
    },
  );

  api.get(
    '/v1/workspaces/:id/question-sets',
    {
      onRequest: reader,
      schema: {
        ...read,
        operationId: 'listQuestionSets',
        summary: "The workspace's question sets, newest first (without their questions)",
        params: WorkspaceParams,
        response: { 200: z.object({ questionSets: z.array(QuestionSetSummary) }), ...errorResponses },
      },
    },
    async (request) => ({
      questionSets: (await listQuestionSets(deps, principalOf(request), request.params.id)).map(summaryView),
    }),
  );

  api.get(
    '/v1/question-sets/:id',
    {
      onRequest: reader,
      schema: {
        ...read,
        operationId: 'getQuestionSet',
        summary: 'A question set with its questions',
        params: Params,
        response: { 200: QuestionSet, ...errorResponses },
      },
    },
    async (request) => questionSetView(await getQuestionSet(deps, principalOf(request), request.params.id)),
  );

  api.delete(
    '/v1/question-sets/:id',
    {
      onRequest: writer,
      schema: {
        ...write,
        operationId: 'deleteQuestionSet',
        summary: 'Delete a question set (the set deleted, without its questions)',
        params: Params,
        response: { 200: QuestionSetSummary, ...errorResponses },
      },
    },
    async (request) => summaryView(await deleteQuestionSet(deps, principalOf(request), request.params.id)),
  );

  // Read when a request comes (the OpenAPI document is built from the routes without deps).
  const evaluation = () => evaluationDepsOf(deps);
  // An evaluation asks as search and chat do (search); its results are read like them.
  const asker = authorize(deps, 'search');

  api.post(
    '/v1/evaluations',
    {
      onRequest: asker,
      schema: {
        ...write,
        operationId: 'createEvaluation',
        summary: "Ask a question set's questions under one or more configurations, as a job (202)",
        body: EvaluationCreate,
        response: { 202: Evaluation, ...errorResponses },
      },
    },
    async (request, reply) => {
      const created = await createEvaluation(evaluation(), principalOf(request), request.body);
      reply.code(202);
      return evaluationView(created);
    },
  );

  api.get(
    '/v1/workspaces/:id/evaluations',
    {
      onRequest: reader,
      schema: {
        ...read,
        operationId: 'listEvaluations',
        summary: "The workspace's evaluations the caller may see, newest first",
        params: WorkspaceParams,
        response: { 200: z.object({ evaluations: z.array(Evaluation) }), ...errorResponses },
      },
    },
    async (request) => ({
      evaluations: (await listEvaluations(evaluation(), principalOf(request), request.params.id)).map((e) =>
        evaluationView(e),
      ),
    }),
  );

  api.get(
    '/v1/evaluations/:id',
    {
      onRequest: reader,
      schema: {
        ...read,
        operationId: 'getEvaluation',
        summary: 'An evaluation: its progress and, once completed, its metrics',
        params: Params,
        response: { 200: Evaluation, ...errorResponses },
      },
    },
    async (request) =>
      evaluationView(await getEvaluation(evaluation(), principalOf(request), request.params.id)),
  );

  api.get(
    '/v1/evaluations/:id/questions',
    {
      onRequest: reader,
      schema: {
        ...read,
        operationId: 'listEvaluationQuestions',
        summary:
          'What each question got: passages retrieved, the answer, its citations and the checks passed',
        params: Params,
        querystring: OutcomeQuery,
        response: {
          200: z.object({ questions: z.array(EvaluationOutcome), nextOffset: z.number().int().nullable() }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { offset, limit, configuration } = request.query;
      const page = await evaluationOutcomes(evaluation(), principalOf(request), request.params.id, {
        configuration,
        offset,
        limit: limit + 1,
      });
      const rows = page.outcomes.slice(0, limit);
      return {
        questions: rows.map((r) => outcomeView(page.evaluation, r)),
        nextOffset: page.outcomes.length > limit ? offset + limit : null,
      };
    },
  );

  api.post(
    '/v1/evaluations/:id/cancel',
    {
      onRequest: asker,
      schema: {
        ...write,
        operationId: 'cancelEvaluation',
        summary: 'Stop a queued or running evaluation (what it asked so far stays readable)',
        params: Params,
        response: { 200: Evaluation, ...errorResponses },
      },
    },
    async (request) =>
      evaluationView(await cancelEvaluation(evaluation(), principalOf(request), request.params.id)),
  );

  api.delete(
    '/v1/evaluations/:id',
    {
      onRequest: asker,
      schema: {
        ...write,
        operationId: 'deleteEvaluation',
        summary: 'Delete an evaluation and what its questions got (the evaluation deleted)',
        params: Params,
        response: { 200: Evaluation, ...errorResponses },
      },
    },
    async (request) =>
      evaluationView(await deleteEvaluation(evaluation(), principalOf(request), request.params.id)),
  );

  api.get(
    '/v1/evaluations/:id/compare/:other',
    {
      onRequest: reader,
      schema: {
        ...read,
        operationId: 'compareEvaluations',
        summary:
          'Another evaluation against this one (the baseline): each metric, its difference and the questions that changed',
        params: CompareParams,
        response: { 200: EvaluationComparison, ...errorResponses },
      },
    },
    async (request) =>
      compareEvaluations(evaluation(), principalOf(request), request.params.id, request.params.other),
  );
}
