import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { getWorkspace, listWorkspaces } from '../../documents/documents.js';
import {
  createWorkspace,
  deleteWorkspace,
  updateWorkspace,
  WORKSPACE_DESCRIPTION_MAX,
  WORKSPACE_NAME_MAX,
} from '../../workspaces/workspaces.js';
import { WorkspaceAccessInput } from '../access-schemas.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { errorResponses, Workspace, WorkspaceDeletion, WorkspaceWithCounts } from '../schemas.js';
import { workspaceView } from '../views.js';

const Params = z.object({ id: z.string().min(1).max(100) });
const Name = z
  .string()
  .min(1)
  .max(WORKSPACE_NAME_MAX)
  .describe('Shown in lists and headings; need not be unique');
const Description = z.string().max(WORKSPACE_DESCRIPTION_MAX).nullable();
const Metadata = z.record(z.string(), z.unknown()).describe('A JSON object of your own');
const Language = z
  .string()
  .max(10)
  .describe(
    'The language its documents are indexed and its questions read in: "auto" (each document its own, detected; the default) or an ISO 639-1 code (GET /v1/formats lists them under languages). Documents keep the language they were indexed in until processed again.',
  );

/** Workspaces: created empty or by an upload, listed with names, renamed, deleted with everything in them. */
export function workspaceRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['workspaces'];

  api.get(
    '/v1/workspaces',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        operationId: 'listWorkspaces',
        tags,
        security: SECURITY.read,
        summary:
          'Workspaces of the account the caller may see, newest first, with their names and the documents it may see counted',
        response: { 200: z.object({ workspaces: z.array(WorkspaceWithCounts) }), ...errorResponses },
      },
    },
    async (req) => {
      const list = await listWorkspaces(deps.workspaces, principalOf(req));
      return { workspaces: list.map((w) => ({ ...workspaceView(w), counts: w.counts })) };
    },
  );

  api.post(
    '/v1/workspaces',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        operationId: 'createWorkspace',
        tags,
        security: SECURITY.write,
        summary: 'Create an empty workspace; upload into it with workspaceId',
        body: z.object({
          name: Name,
          description: Description.optional(),
          metadata: Metadata.optional(),
          language: Language.optional(),
          access: WorkspaceAccessInput.optional().describe(
            'Who may read and edit it (owners and admins only); left out or null, the whole account',
          ),
        }),
        response: { 201: Workspace, ...errorResponses },
      },
    },
    async (req, reply) => {
      const ws = await createWorkspace(deps, principalOf(req), req.body);
      reply.code(201);
      return workspaceView(ws);
    },
  );

  api.get(
    '/v1/workspaces/:id',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        operationId: 'getWorkspace',
        tags,
        security: SECURITY.read,
        params: Params,
        summary: 'One workspace',
        response: { 200: Workspace, ...errorResponses },
      },
    },
    async (req) => workspaceView(await getWorkspace(deps, principalOf(req), req.params.id)),
  );

  api.patch(
    '/v1/workspaces/:id',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        operationId: 'updateWorkspace',
        tags,
        security: SECURITY.write,
        params: Params,
        summary:
          'Rename a workspace, or change its description, metadata, language or access (fields left out stay)',
        body: z
          .object({
            name: Name.optional(),
            description: Description.optional().describe('null or "" removes it'),
            metadata: Metadata.optional().describe('Replaces the whole object'),
            language: Language.optional(),
            access: WorkspaceAccessInput.optional().describe(
              'Who may read and edit it (owners and admins only); null opens it to the whole account',
            ),
          })
          .refine((b) => Object.values(b).some((v) => v !== undefined), {
            message: 'Send at least one of name, description, metadata, language, access.',
          }),
        response: { 200: Workspace, ...errorResponses },
      },
    },
    async (req) => workspaceView(await updateWorkspace(deps, principalOf(req), req.params.id, req.body)),
  );

  api.delete(
    '/v1/workspaces/:id',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        operationId: 'deleteWorkspace',
        tags,
        security: SECURITY.write,
        params: Params,
        summary:
          'Delete a workspace with its documents, runs, stored files and index; it leaves search at once (runs in progress end)',
        response: { 200: WorkspaceDeletion, ...errorResponses },
      },
    },
    async (req) => {
      const deleted = await deleteWorkspace(deps, principalOf(req), req.params.id);
      return {
        workspace: workspaceView(deleted.workspace),
        documents: deleted.documents,
        cancelledRuns: deleted.cancelledRuns,
        storage: deleted.storage,
      };
    },
  );
}
