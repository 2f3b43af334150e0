import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../errors.js';
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

/** A workspace's question sets, for evaluations (docs/evaluation.md). */
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
}
