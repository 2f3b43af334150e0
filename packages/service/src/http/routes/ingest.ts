import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { documentView, runView } from '../../domain/views.js';
import { errors } from '../../errors.js';
import { ingestForm } from '../../ingestion/form.js';
import type { UploadResult } from '../../ingestion/upload.js';
import { ingestUrls } from '../../ingestion/urls.js';
import { REFUSED_ON_UPLOAD, SUPPORTED_FORMATS } from '../../parsing/upload-check.js';
import { languageFor, SUPPORTED_LANGUAGES } from '../../text/language.js';
import { WORKSPACE_NAME_MAX } from '../../workspaces/workspaces.js';
import { DocumentAccessInput } from '../access-schemas.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { uploadForm } from '../multipart.js';
import { SECURITY } from '../openapi.js';
import { ErrorBody, errorResponses, Formats, UploadResponse } from '../schemas.js';
import { workspaceView } from '../views.js';

function uploadView(result: UploadResult) {
  return {
    workspace: workspaceView(result.workspace),
    run: runView(result.run),
    documents: result.documents.map(documentView),
  };
}

export function ingestRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const UrlsBody = z.object({
    urls: z.array(z.string().min(1)).min(1).max(deps.config.urlFetch.maxUrlsPerRequest),
    workspaceId: z.string().min(1).max(100).optional(),
    workspaceName: z
      .string()
      .min(1)
      .max(WORKSPACE_NAME_MAX)
      .optional()
      .describe('Name of the workspace the request creates (not with workspaceId)'),
    idempotencyKey: z.string().min(1).max(255).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    access: DocumentAccessInput.optional(),
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
        operationId: 'ingestUrls',
        summary: 'Ingest web pages and files by URL into a new or existing workspace (fetched by the worker)',
        tags: ['ingest'],
        security: SECURITY.write,
        body: UrlsBody,
        response: { 202: UploadResponse, ...errorResponses, 409: ErrorBody, 507: ErrorBody },
      },
    },
    async (request, reply) => {
      // The worker stores what it fetches: refused now rather than failing every document later.
      await deps.space.ensure(0);
      const result = await ingestUrls(deps, principalOf(request), {
        urls: request.body.urls,
        workspaceId: request.body.workspaceId,
        workspaceName: request.body.workspaceName,
        idempotencyKey: request.body.idempotencyKey,
        metadata: request.body.metadata ?? {},
        headers: request.body.headers,
        access: request.body.access,
      });
      reply.code(202).header('idempotent-replayed', String(result.replayed));
      return uploadView(result);
    },
  );

  api.post(
    '/v1/ingest/bulk',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        operationId: 'upload',
        summary:
          'Upload files into a new or existing workspace and start a processing run; a file no worker can read refuses the whole upload (415, each such file named)',
        tags: ['ingest'],
        consumes: ['multipart/form-data'],
        security: SECURITY.write,
        response: {
          202: UploadResponse,
          ...errorResponses,
          409: ErrorBody,
          413: ErrorBody,
          415: ErrorBody,
          507: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) {
        throw errors.unsupportedContentType(request.headers['content-type'] ?? 'none', 'multipart/form-data');
      }
      const limits = deps.config.limits;
      const declared = Number(request.headers['content-length']);
      const result = await ingestForm(
        { ...deps, limits },
        principalOf(request),
        uploadForm(request),
        Number.isSafeInteger(declared) && declared > 0 ? declared : undefined,
      );
      reply.code(202).header('idempotent-replayed', String(result.replayed));
      return uploadView(result);
    },
  );

  api.get(
    '/v1/formats',
    {
      schema: {
        operationId: 'listFormats',
        summary: 'The formats the service reads, and what an upload refuses; needs no key',
        tags: ['ingest'],
        security: SECURITY.none,
        response: { 200: Formats, 429: ErrorBody },
      },
    },
    async () => ({
      formats: SUPPORTED_FORMATS.map((f) => ({ ...f })),
      refused: [...REFUSED_ON_UPLOAD],
      languages: SUPPORTED_LANGUAGES.map((code) => ({ code, name: languageFor(code).name })),
    }),
  );
}
