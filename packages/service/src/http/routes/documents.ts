import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deleteDocument,
  getAvailability,
  getDocument,
  getDocumentContent,
  getDocumentText,
  listDocuments,
  setDocumentAccess,
} from '../../documents/documents.js';
import { documentView, runView } from '../../domain/views.js';
import { mediaTypeOrNull } from '../../ingestion/upload.js';
import { reprocessDocument } from '../../runs/reprocess.js';
import { DocumentAccessInput } from '../access-schemas.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { Availability, Document, ErrorBody, errorResponses, ReprocessResponse } from '../schemas.js';

const Params = z.object({ id: z.string().min(1).max(100) });

/** `attachment; filename=…` that survives any file name (RFC 6266 / 5987). */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function documentRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const docs = { tags: ['documents'], security: SECURITY.read, params: Params };
  const ws = { tags: ['documents'], security: SECURITY.read };

  api.get(
    '/v1/workspaces/:id/documents',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        ...ws,
        operationId: 'listDocuments',
        params: Params,
        summary: 'Documents of a workspace that the caller may read',
        response: { 200: z.object({ documents: z.array(Document) }), ...errorResponses },
      },
    },
    async (req) => ({
      documents: (await listDocuments(deps, principalOf(req), req.params.id)).map(documentView),
    }),
  );

  api.get(
    '/v1/workspaces/:id/availability',
    {
      onRequest: authorize(deps, 'search'),
      schema: {
        ...ws,
        operationId: 'getAvailability',
        params: Params,
        summary: 'Which documents search covers now and which are still being indexed',
        response: { 200: Availability, ...errorResponses },
      },
    },
    async (req) => getAvailability(deps, principalOf(req), req.params.id),
  );

  api.get(
    '/v1/documents/:id',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        ...docs,
        operationId: 'getDocument',
        summary: 'One document',
        response: { 200: Document, ...errorResponses },
      },
    },
    async (req) => documentView(await getDocument(deps.documents, principalOf(req), req.params.id)),
  );

  api.get(
    '/v1/documents/:id/text',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        ...docs,
        operationId: 'getDocumentText',
        summary: 'Extracted text (Markdown) with <!-- page N --> markers; citation offsets point into it',
        produces: ['text/markdown'],
        response: {
          200: { description: 'The text', content: { 'text/markdown': { schema: z.string() } } },
          ...errorResponses,
          409: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const { text } = await getDocumentText(deps, principalOf(req), req.params.id);
      reply.type('text/markdown; charset=utf-8');
      // A stream, sent as it is read; the route's schema only describes it.
      return reply.send(text as never);
    },
  );

  api.get(
    '/v1/documents/:id/content',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        ...docs,
        operationId: 'getDocumentContent',
        summary: 'The original bytes as uploaded',
        response: {
          200: {
            description:
              "The file, with its detected media type (or the one it was sent with) and an attachment's Content-Disposition",
            content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } },
          },
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      const { document, body } = await getDocumentContent(deps, principalOf(req), req.params.id);
      // The declared type was the client's word: only a well-formed one becomes a header (values
      // stored before uploads were checked may hold anything).
      reply
        .type(
          document.mediaType && !document.mediaType.includes('*')
            ? document.mediaType
            : (mediaTypeOrNull(document.declaredMediaType) ?? 'application/octet-stream'),
        )
        .header('content-length', String(document.sizeBytes))
        .header('content-disposition', contentDisposition(document.filename))
        // Uploaded HTML or SVG must never run in our origin.
        .header('content-security-policy', "default-src 'none'; sandbox");
      // A stream, sent as it is read; the route's schema only describes it.
      return reply.send(body as never);
    },
  );

  api.post(
    '/v1/documents/:id/reprocess',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        ...docs,
        operationId: 'reprocessDocument',
        security: SECURITY.write,
        summary: 'Process a cancelled or failed document again, in a new run',
        response: { 202: ReprocessResponse, ...errorResponses, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const r = await reprocessDocument(deps, principalOf(req), req.params.id);
      reply.code(202);
      return { run: runView(r.run), documents: r.documents.map(documentView) };
    },
  );

  api.patch(
    '/v1/documents/:id',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        ...docs,
        operationId: 'updateDocument',
        security: SECURITY.write,
        summary:
          "Set who of its workspace's readers may read a document (editors of the workspace); applies to the next request, without reprocessing",
        body: z.object({ access: DocumentAccessInput }).strict(),
        response: { 200: Document, ...errorResponses },
      },
    },
    async (req) =>
      documentView(await setDocumentAccess(deps, principalOf(req), req.params.id, req.body.access)),
  );

  api.delete(
    '/v1/documents/:id',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        ...docs,
        operationId: 'deleteDocument',
        security: SECURITY.write,
        summary: 'Delete a document; it leaves search at once',
        response: { 200: Document, ...errorResponses },
      },
    },
    async (req) => documentView(await deleteDocument(deps, principalOf(req), req.params.id)),
  );
}
