import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { documentView, progressView, runView } from '../../domain/views.js';
import { REPROCESSABLE, reprocessRun } from '../../runs/reprocess.js';
import { cancelRun, getRun, getRunProgress, listRuns, pauseRun, resumeRun } from '../../runs/runs.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { ErrorBody, errorResponses, ReprocessResponse, Run, RunProgress } from '../schemas.js';

const Params = z.object({ id: z.string().min(1).max(100) });

export function runRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['runs'], security: SECURITY.read, params: Params };

  api.get(
    '/v1/runs/:id',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        ...common,
        operationId: 'getRun',
        summary: 'A run and its document counts',
        response: { 200: Run, ...errorResponses },
      },
    },
    async (req) => runView(await getRun(deps.runs, principalOf(req), req.params.id)),
  );

  api.get(
    '/v1/workspaces/:id/runs',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        ...common,
        operationId: 'listRuns',
        summary: "The workspace's runs, newest first, each with its kind and document counts",
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(100).default(20).describe('At most this many runs'),
        }),
        response: { 200: z.object({ runs: z.array(Run) }), ...errorResponses },
      },
    },
    async (req) => ({
      runs: (await listRuns(deps.runs, principalOf(req), req.params.id, req.query.limit)).map(runView),
    }),
  );

  api.get(
    '/v1/runs/:id/progress',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        ...common,
        operationId: 'getRunProgress',
        summary: 'Progress of a run, per document with stage and error',
        response: { 200: RunProgress, ...errorResponses },
      },
    },
    async (req) => {
      const { run, documents } = await getRunProgress(deps.runs, principalOf(req), req.params.id);
      return progressView(run, documents);
    },
  );

  const actionSchema = (operationId: string, summary: string) => ({
    ...common,
    operationId,
    security: SECURITY.write,
    summary,
    response: { 200: Run, ...errorResponses, 409: ErrorBody },
  });
  api.post(
    '/v1/runs/:id/pause',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: actionSchema('pauseRun', 'Stop starting new documents; those in progress finish'),
    },
    async (req) => runView(await pauseRun(deps, principalOf(req), req.params.id)),
  );
  api.post(
    '/v1/runs/:id/resume',
    { onRequest: authorize(deps, 'ingest'), schema: actionSchema('resumeRun', 'Resume a paused run') },
    async (req) => runView(await resumeRun(deps, principalOf(req), req.params.id)),
  );
  api.post(
    '/v1/runs/:id/reprocess',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: {
        ...common,
        operationId: 'reprocessRun',
        security: SECURITY.write,
        summary: "Process the run's cancelled and failed documents again, together in a new run",
        body: z
          .object({
            statuses: z
              .array(z.enum(REPROCESSABLE))
              .min(1)
              .optional()
              .describe('Only the documents in these states (cancelled, failed); both when left out'),
          })
          // No body at all is fine too, as for cancel.
          .nullish(),
        response: { 202: ReprocessResponse, ...errorResponses, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const r = await reprocessRun(deps, principalOf(req), req.params.id, req.body?.statuses ?? undefined);
      reply.code(202);
      return { run: runView(r.run), documents: r.documents.map(documentView) };
    },
  );
  api.post(
    '/v1/runs/:id/cancel',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: actionSchema('cancelRun', 'Cancel a run: waiting documents are not processed'),
    },
    async (req) => runView(await cancelRun(deps, principalOf(req), req.params.id)),
  );
}
