import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { cancelRun, getRun, getRunProgress, pauseRun, resumeRun } from '../../runs/runs.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { ErrorBody, errorResponses, Run, RunProgress } from '../schemas.js';
import { progressView, runView } from '../views.js';

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
    async (req) => runView(await pauseRun(deps.runs, principalOf(req), req.params.id)),
  );
  api.post(
    '/v1/runs/:id/resume',
    { onRequest: authorize(deps, 'ingest'), schema: actionSchema('resumeRun', 'Resume a paused run') },
    async (req) => runView(await resumeRun(deps, principalOf(req), req.params.id)),
  );
  api.post(
    '/v1/runs/:id/cancel',
    {
      onRequest: authorize(deps, 'ingest'),
      schema: actionSchema('cancelRun', 'Cancel a run: waiting documents are not processed'),
    },
    async (req) => runView(await cancelRun(deps.runs, principalOf(req), req.params.id)),
  );
}
