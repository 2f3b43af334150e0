import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import { errors } from '../errors.js';
import type { Logger } from '../logger.js';
import {
  capConnectionsPerAddress,
  capTotalConnections,
  connectionTimeouts,
  proxyMatcher,
} from './connections.js';
import { toAppError } from './errors.js';
import { type ProbeDeps, probeRoutes } from './routes/ops.js';

/** Where the process's descriptor limit cannot be read (not Linux): a quarter of macOS's default 256. */
const PROBE_CONNECTIONS_FALLBACK = 64;

/**
 * How many connections the probe port may hold at once, from the process's limit on open files
 * (RLIMIT_NOFILE's soft limit): a sixteenth of it, between 8 and 256. Probes need a handful (the
 * kubelet's, a scraper's); everything else is kept for the work itself (database pools, the object
 * store's and the index's connections, parser processes and their pipes, temporary files), which
 * a flood of connections to the probe port would otherwise starve into EMFILE.
 */
export function probeConnectionCap(openFilesLimit: number | undefined): number {
  if (openFilesLimit === undefined) return PROBE_CONNECTIONS_FALLBACK;
  return Math.max(8, Math.min(256, Math.floor(openFilesLimit / 16)));
}

/**
 * A worker's own small HTTP app: `/health`, `/ready` (its dependencies: database, object store and
 * its conditional writes, search index, job engine, parser sandbox) and `/metrics` (its batches,
 * commits, queue depth, webhook backlog), with the server's rules for detail and the metrics secret.
 * Nothing else: a worker serves no API.
 *
 * `maxConnections` is the probe port's total (probeConnectionCap). One address may hold at most
 * HTTP_MAX_CONNECTIONS_PER_ADDRESS of them, and never more than half, so that one caller alone
 * cannot shut the kubelet out.
 */
export async function buildWorkerApp(
  deps: ProbeDeps & { log: Logger },
  maxConnections: number,
): Promise<FastifyInstance> {
  const { server } = deps.config;
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // Probes and scrapes only: small bodies, and the whole request within the body timeout.
    bodyLimit: 1024,
    ...connectionTimeouts(server, server.bodyTimeoutMs),
    // The client address counts as on the server's port (/ready's limit per address).
    trustProxy: server.trustedProxies.length ? server.trustedProxies : false,
  });
  const perAddress = Math.min(
    server.maxConnectionsPerAddress > 0 ? server.maxConnectionsPerAddress : Number.POSITIVE_INFINITY,
    Math.max(1, Math.floor(maxConnections / 2)),
  );
  capConnectionsPerAddress(app.server, perAddress, proxyMatcher(server.trustedProxies), (address) =>
    deps.log.warn(
      { address, max: perAddress },
      'refused connections to the worker probes over the per-address cap (HTTP_MAX_CONNECTIONS_PER_ADDRESS)',
    ),
  );
  capTotalConnections(app.server, maxConnections, () =>
    deps.log.warn(
      { max: maxConnections },
      'closed connections to the worker probes over their cap, kept so that the work has descriptors left',
    ),
  );
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const appError = toAppError(err);
    if (appError.status >= 500) request.log.error({ err }, 'request failed');
    // Retry-After of a refused /ready, as on the server's port.
    for (const [k, v] of Object.entries(appError.headers)) reply.header(k, v);
    return reply
      .code(appError.status)
      .type('application/json; charset=utf-8')
      .send({ error: { code: appError.code, message: appError.message, requestId: request.id } });
  });
  app.setNotFoundHandler((request, reply) => {
    const e = errors.routeNotFound(request.method, request.url);
    return reply.code(404).send({ error: { code: e.code, message: e.message, requestId: request.id } });
  });
  probeRoutes(app, deps);
  return app;
}
