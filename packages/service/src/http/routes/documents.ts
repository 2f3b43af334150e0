import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deleteDocument,
  getAvailability,
  getDocument,
  getDocumentContent,
  getDocumentText,
  getWorkspace,
  listDocuments,
} from '../../documents/documents.js';
import { errors } from '../../errors.js';
import { mediaTypeOrNull } from '../../ingestion/upload.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import {
  Availability,
  Document,
  ErrorBody,
  errorResponses,
  Workspace,
  WorkspaceWithCounts,
} from '../schemas.js';
import { documentView, workspaceView } from '../views.js';

const Params = z.object({ id: z.string().min(1).max(100) });

/** `attachment; filename=…` that survives any file name (RFC 6266 / 5987). */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function documentRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const docs = { tags: ['documents'], security: [{ apiKey: [] }], params: Params };
  const ws = { tags: ['workspaces'], security: [{ apiKey: [] }] };

  api.get(
    '/v1/workspaces',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        ...ws,
        summary: 'Workspaces of the account, newest first',
        response: { 200: z.object({ workspaces: z.array(WorkspaceWithCounts) }), ...errorResponses },
      },
    },
    async (req) => {
      const list = await deps.store.listWorkspaces(principalOf(req).accountId);
      return { workspaces: list.map((w) => ({ ...workspaceView(w), counts: w.counts })) };
    },
  );

  api.get(
    '/v1/workspaces/:id',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        ...ws,
        params: Params,
        summary: 'One workspace',
        response: { 200: Workspace, ...errorResponses },
      },
    },
    async (req) => workspaceView(await getWorkspace(deps.store, principalOf(req), req.params.id)),
  );

  api.get(
    '/v1/workspaces/:id/documents',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        ...ws,
        params: Params,
        summary: 'Documents of a workspace',
        response: { 200: z.object({ documents: z.array(Document) }), ...errorResponses },
      },
    },
    async (req) => ({
      documents: (await listDocuments(deps.store, principalOf(req), req.params.id)).map(documentView),
    }),
  );

  api.get(
    '/v1/workspaces/:id/availability',
    {
      onRequest: authorize(deps, 'search'),
      schema: {
        ...ws,
        params: Params,
        summary: 'Which documents search covers now and which are still being indexed',
        response: { 200: Availability, ...errorResponses },
      },
    },
    async (req) => getAvailability(deps.store, principalOf(req), req.params.id),
  );

  api.get(
    '/v1/documents/:id',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: { ...docs, summary: 'One document', response: { 200: Document, ...errorResponses } },
    },
    async (req) => documentView(await getDocument(deps.store, principalOf(req), req.params.id)),
  );

  api.get(
    '/v1/documents/:id/text',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        ...docs,
        summary: 'Extracted text (Markdown) with <!-- page N --> markers; citation offsets point into it',
        response: { 200: z.string().describe('text/markdown'), ...errorResponses, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const { document, text } = await getDocumentText(deps, principalOf(req), req.params.id);
      if (text === undefined) throw errors.textNotAvailable(document.id, document.status);
      reply.type('text/markdown; charset=utf-8');
      return text;
    },
  );

  api.get(
    '/v1/documents/:id/content',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: { ...docs, summary: 'The original bytes as uploaded' },
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
      return reply.send(body);
    },
  );

  api.delete(
    '/v1/documents/:id',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        ...docs,
        summary: 'Delete a document; it leaves search at once',
        response: { 200: Document, ...errorResponses },
      },
    },
    async (req) => documentView(await deleteDocument(deps, principalOf(req), req.params.id)),
  );
}
