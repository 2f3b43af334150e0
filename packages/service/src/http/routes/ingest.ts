import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../errors.js';
import { ingestForm } from '../../ingestion/form.js';
import type { UploadResult } from '../../ingestion/upload.js';
import { ingestUrls } from '../../ingestion/urls.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { uploadForm } from '../multipart.js';
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
      const result = await ingestUrls(deps, principalOf(request), {
        urls: request.body.urls,
        workspaceId: request.body.workspaceId,
        idempotencyKey: request.body.idempotencyKey,
        metadata: request.body.metadata ?? {},
        headers: request.body.headers,
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
      const limits = deps.config.limits;
      const result = await ingestForm({ ...deps, limits }, principalOf(request), uploadForm(request));
      reply.code(202).header('idempotent-replayed', String(result.replayed));
      return uploadView(result);
    },
  );
}
