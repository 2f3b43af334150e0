import type { Multipart } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { StagedFile } from '../../domain/ports.js';
import { type AppError, errors } from '../../errors.js';
import { createUpload, stageFile } from '../../ingestion/upload.js';
import { ingestUrls } from '../../ingestion/urls.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { checkInput } from '../input.js';
import { ErrorBody, errorResponses, UploadResponse } from '../schemas.js';
import { documentView, runView, workspaceView } from '../views.js';

/** The multipart body, for the OpenAPI document (the handler reads the parts as a stream). */
export const UploadForm = z
  .object({
    files: z
      .array(z.string())
      .describe('One or more file parts (field "files", repeatable; "file" is accepted too)'),
    workspaceId: z.string().optional().describe('Append to this workspace; a new one is created when absent'),
    idempotencyKey: z
      .string()
      .max(255)
      .optional()
      .describe('Replays with the same key and content return the same records'),
    metadata: z.string().optional().describe('JSON object stored on every document of this upload'),
  })
  .describe('multipart/form-data');

function parseMetadata(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw errors.invalidRequest('The field "metadata" must be a JSON object.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw errors.invalidRequest('The field "metadata" must be a JSON object.');
  }
  checkInput(value, 'metadata');
  return value as Record<string, unknown>;
}

/** Form fields an upload may carry besides its files (workspaceId, idempotencyKey, metadata, …). */
export const UPLOAD_FIELDS = { max: 20, maxBytes: 64 * 1024 };

/** A failure of the multipart body itself (as opposed to storage or the database). */
class MultipartBodyError extends Error {
  constructor(override readonly cause: unknown) {
    super('multipart body error');
  }
}

/**
 * The parts of a multipart request. Whatever the parser throws (its own limits, a missing boundary,
 * a body that ends early or is not multipart at all) comes out as a MultipartBodyError, so the route
 * can answer it with a 4xx and never mistake it for a failure of the server.
 */
async function* partsOf(request: FastifyRequest): AsyncGenerator<Multipart> {
  let parts: AsyncIterableIterator<Multipart>;
  try {
    parts = request.parts();
  } catch (err) {
    throw new MultipartBodyError(err);
  }
  for (;;) {
    let next: IteratorResult<Multipart>;
    try {
      next = await parts.next();
    } catch (err) {
      throw new MultipartBodyError(err);
    }
    if (next.done) return;
    yield next.value;
  }
}

function multipartError(err: unknown, currentFile: string, deps: AppDeps): AppError {
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE')
    return errors.fileTooLarge(currentFile, deps.config.limits.maxFileBytes);
  if (code === 'FST_FILES_LIMIT') return errors.tooManyFiles(deps.config.limits.maxFilesPerUpload);
  if (code === 'FST_FIELDS_LIMIT') return errors.tooManyFields(UPLOAD_FIELDS.max);
  const message = err instanceof Error ? err.message.replace(/\.$/, '') : String(err);
  return errors.malformedMultipart(message);
}

export function ingestRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const UrlsBody = z.object({
    urls: z.array(z.string().min(1)).min(1).max(deps.config.urlFetch.maxUrlsPerRequest),
    workspaceId: z.string().min(1).max(100).optional(),
    idempotencyKey: z.string().min(1).max(255).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        "Headers for fetching these URLs, e.g. Authorization; stored encrypted and sent only to the URL's own origin",
      ),
  });

  api.post(
    '/v1/ingest/urls',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        summary: 'Ingest web pages and files by URL into a new or existing workspace (fetched by the worker)',
        tags: ['ingest'],
        security: [{ apiKey: [] }],
        body: UrlsBody,
        response: { 202: UploadResponse, ...errorResponses, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const result = await ingestUrls(deps, principal, {
        urls: request.body.urls,
        workspaceId: request.body.workspaceId,
        idempotencyKey: request.body.idempotencyKey,
        metadata: request.body.metadata ?? {},
        headers: request.body.headers,
      });
      const run = await deps.store.getRun(principal.accountId, result.run.id);
      reply.code(202).header('idempotent-replayed', String(result.replayed));
      return {
        workspace: workspaceView(result.workspace),
        run: runView(run!),
        documents: result.documents.map(documentView),
      };
    },
  );

  api.post(
    '/v1/ingest/bulk',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        summary: 'Upload files into a new or existing workspace and start a processing run',
        tags: ['ingest'],
        consumes: ['multipart/form-data'],
        security: [{ apiKey: [] }],
        response: { 202: UploadResponse, ...errorResponses, 409: ErrorBody, 413: ErrorBody, 415: ErrorBody },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) {
        throw errors.unsupportedContentType(request.headers['content-type'] ?? 'none', 'multipart/form-data');
      }
      const principal = principalOf(request);
      const staged: StagedFile[] = [];
      const fields: Record<string, string> = {};
      let checkedWorkspace = false;
      let currentFile = '';
      try {
        for await (const part of partsOf(request)) {
          if (part.type === 'field') {
            // busboy cuts a longer value silently; a cut metadata object would be misreported as not JSON.
            if (part.valueTruncated) throw errors.fieldTooLarge(part.fieldname, UPLOAD_FIELDS.maxBytes);
            const value = String(part.value);
            checkInput({ [part.fieldname]: value }, '');
            fields[part.fieldname] = value;
            continue;
          }
          if (part.fieldname !== 'files' && part.fieldname !== 'file') {
            part.file.resume();
            throw errors.invalidRequest(
              `Unexpected file field "${part.fieldname}": send files in the field "files".`,
            );
          }
          // Fail fast on a wrong workspace when its field comes before the files, as the SDK sends it.
          if (!checkedWorkspace && fields.workspaceId) {
            checkedWorkspace = true;
            if (!(await deps.store.workspaceExists(principal.accountId, fields.workspaceId))) {
              part.file.resume();
              throw errors.workspaceNotFound(fields.workspaceId);
            }
          }
          // busboy leaves the name undefined for `filename=""`, whatever the typings say.
          currentFile = (part.filename as string | undefined) ?? '';
          staged.push(
            await stageFile(deps.objects, {
              filename: currentFile,
              mediaType: part.mimetype || null,
              stream: part.file,
            }),
          );
        }
      } catch (err) {
        await deps.objects.delete(staged.map((f) => f.storageKey)).catch(() => {});
        if (err instanceof MultipartBodyError) throw multipartError(err.cause, currentFile, deps);
        throw err;
      }
      const idempotencyKey = fields.idempotencyKey?.trim() || undefined;
      let metadata: Record<string, unknown>;
      try {
        if (idempotencyKey && idempotencyKey.length > 255)
          throw errors.invalidRequest('The idempotency key may be at most 255 characters.');
        metadata = parseMetadata(fields.metadata);
      } catch (err) {
        await deps.objects.delete(staged.map((f) => f.storageKey)).catch(() => {});
        throw err;
      }
      const result = await createUpload(deps, principal, {
        workspaceId: fields.workspaceId?.trim() || undefined,
        idempotencyKey,
        metadata,
        files: staged,
      });
      const run = await deps.store.getRun(principal.accountId, result.run.id);
      reply.code(202).header('idempotent-replayed', String(result.replayed));
      return {
        workspace: workspaceView(result.workspace),
        run: runView(run!),
        documents: result.documents.map(documentView),
      };
    },
  );
}
