import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import { errors } from '../errors.js';
import { toAppError } from './errors.js';
import { type ProbeDeps, probeRoutes } from './routes/ops.js';

/**
 * A worker's own small HTTP app: `/health`, `/ready` (its dependencies: database, object store and
 * its conditional writes, search index, job engine, parser sandbox) and `/metrics` (its batches,
 * commits, queue depth, webhook backlog), with the server's rules for detail and the metrics secret.
 * Nothing else: a worker serves no API.
 */
export async function buildWorkerApp(deps: ProbeDeps & { log: unknown }): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // Probes and scrapes only: small bodies, short requests.
    bodyLimit: 1024,
    requestTimeout: 30_000,
  });
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const appError = toAppError(err);
    if (appError.status >= 500) request.log.error({ err }, 'request failed');
    return reply
      .code(appError.status)
      .send({ error: { code: appError.code, message: appError.message, requestId: request.id } });
  });
  app.setNotFoundHandler((request, reply) => {
    const e = errors.routeNotFound(request.method, request.url);
    return reply.code(404).send({ error: { code: e.code, message: e.message, requestId: request.id } });
  });
  probeRoutes(app, deps);
  return app;
}
