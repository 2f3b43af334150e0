import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { runView } from '../../domain/views.js';
import {
  createSource,
  deleteSource,
  getSource,
  listSources,
  sourceTypesFor,
  syncNow,
  updateSource,
} from '../../sources/sources.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { errorResponses, Run } from '../schemas.js';
import { Source, SourceCreate, SourceTypeOffer, SourceUpdate, sourceView } from '../source-views.js';

const WorkspaceParams = z.object({ id: z.string().min(1).max(100) });
const Params = WorkspaceParams.extend({ sourceId: z.string().min(1).max(100) });

/** A workspace's sources and their syncs (docs/api.md#sources). */
export function sourceRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const read = { tags: ['sources'], security: SECURITY.read };
  const write = { tags: ['sources'], security: SECURITY.write };
  const reader = authorize(deps, 'artifacts');
  const writer = authorize(deps, 'ingest');

  api.get(
    '/v1/source-types',
    {
      onRequest: authorize(deps, ['ingest', 'artifacts']),
      schema: {
        ...read,
        operationId: 'listSourceTypes',
        summary: 'The types of source this server lets the caller add (folders only where granted)',
        response: { 200: z.object({ types: z.array(SourceTypeOffer) }), ...errorResponses },
      },
    },
    async (req) => ({ types: await sourceTypesFor(deps, principalOf(req)) }),
  );

  api.post(
    '/v1/workspaces/:id/sources',
    {
      onRequest: writer,
      schema: {
        ...write,
        operationId: 'createSource',
        summary: 'Add a source the workspace stays in sync with',
        params: WorkspaceParams,
        body: SourceCreate,
        response: { 201: Source, ...errorResponses },
      },
    },
    async (req, reply) => {
      const source = await createSource(deps, principalOf(req), req.params.id, req.body);
      reply.code(201);
      return sourceView(source);
    },
  );

  api.get(
    '/v1/workspaces/:id/sources',
    {
      onRequest: reader,
      schema: {
        ...read,
        operationId: 'listSources',
        summary: "The workspace's sources with their last and next sync",
        params: WorkspaceParams,
        response: { 200: z.object({ sources: z.array(Source) }), ...errorResponses },
      },
    },
    async (req) => ({
      sources: (await listSources(deps, principalOf(req), req.params.id)).map(sourceView),
    }),
  );

  api.get(
    '/v1/workspaces/:id/sources/:sourceId',
    {
      onRequest: reader,
      schema: {
        ...read,
        operationId: 'getSource',
        summary: 'A source',
        params: Params,
        response: { 200: Source, ...errorResponses },
      },
    },
    async (req) => sourceView(await getSource(deps, principalOf(req), req.params.id, req.params.sourceId)),
  );

  api.patch(
    '/v1/workspaces/:id/sources/:sourceId',
    {
      onRequest: writer,
      schema: {
        ...write,
        operationId: 'updateSource',
        summary: "Change a source's name, settings, credentials, schedule or deletion limit",
        params: Params,
        body: SourceUpdate,
        response: { 200: Source, ...errorResponses },
      },
    },
    async (req) =>
      sourceView(await updateSource(deps, principalOf(req), req.params.id, req.params.sourceId, req.body)),
  );

  api.delete(
    '/v1/workspaces/:id/sources/:sourceId',
    {
      onRequest: writer,
      schema: {
        ...write,
        operationId: 'deleteSource',
        summary: 'Delete a source and the documents it brought',
        params: Params,
        response: { 200: Source, ...errorResponses },
      },
    },
    async (req) => sourceView(await deleteSource(deps, principalOf(req), req.params.id, req.params.sourceId)),
  );

  api.post(
    '/v1/workspaces/:id/sources/:sourceId/sync',
    {
      onRequest: writer,
      schema: {
        ...write,
        operationId: 'syncSource',
        summary: 'Sync now: the run of the sync (a new one, or the one already under way)',
        params: Params,
        body: z
          .object({
            force: z
              .boolean()
              .default(false)
              .describe('Delete what is gone from the source even beyond its maxDeleteShare'),
          })
          .default({ force: false }),
        response: { 202: z.object({ run: Run, created: z.boolean() }), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { run, created } = await syncNow(deps, principalOf(req), req.params.id, req.params.sourceId, {
        force: req.body?.force ?? false,
      });
      reply.code(202);
      return { run: runView(run), created };
    },
  );
}
