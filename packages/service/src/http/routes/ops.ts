import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import { checkReadiness, redactReadiness, sharedReadiness } from '../../ops/readiness.js';
import { withoutTrailingSlashes } from '../../strings.js';
import { addressBucket, relayedByProxy } from '../connections.js';
import { type AppDeps, throttled } from '../context.js';
import { servedDocument } from '../openapi.js';
import { secretEquals } from '../secrets.js';

function bearer(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
}

function isLoopback(ip: string): boolean {
  return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1';
}

/** What the probes need: the server's deps, or a worker's (with its own readiness checks). */
export type ProbeDeps = Pick<
  AppDeps,
  'config' | 'readinessChecks' | 'readyLimiter' | 'authFailures' | 'ops' | 'metrics'
>;

/**
 * Refuses an operational path spelled any way but its own. The router decodes `%xx` before it
 * matches and also takes an absolute URL (`http://host/ready`) or a `#…` tail for the bare path, so
 * `/re%61dy` reached `/ready`; a reverse proxy that blocks `/ready` and `/metrics` by exact path
 * compares the path as sent (or normalised its own way) and let it through. Answering only the exact
 * spelling leaves no form that such a proxy passes and this route serves: anything else is an unknown
 * path (404 route_not_found). The query string takes no part in path matching, here or at a proxy.
 */
async function onlyAsSpelled(request: FastifyRequest): Promise<void> {
  const rawPath = request.url.split('?', 1)[0];
  if (rawPath !== request.routeOptions.url) throw errors.routeNotFound(request.method, request.url);
}

/** Route options of an operational endpoint: hidden from the API document, exact spelling only. */
const operational = { schema: { hide: true }, onRequest: onlyAsSpelled };

/** `/health`, `/ready` and `/metrics`, the same on the server's port and on a worker's. */
export function probeRoutes(app: FastifyInstance, deps: ProbeDeps): void {
  app.get('/health', operational, async () => ({ ok: true }));

  const readinessNow = sharedReadiness(() =>
    checkReadiness(deps.readinessChecks, () => deps.ops.schemaVersion()),
  );
  app.get('/ready', operational, async (request, reply) => {
    // It needs no key, so the budget is per client address (the proxy's client behind TRUSTED_PROXIES).
    const allowed = await deps.readyLimiter.consume(`ready:${addressBucket(request.ip)}`);
    if (!allowed.allowed) throw errors.rateLimited(allowed.retryAfterSeconds);
    const readiness = await readinessNow();
    reply.code(readiness.status === 'unavailable' ? 503 : 200).header('cache-control', 'no-store');
    // On a hosted platform the endpoint may be public: only local callers and holders of the metrics
    // secret see latencies, versions and error texts. Local means on the loopback socket and relayed by
    // no proxy: a reverse proxy on the same host arrives on loopback too, with whoever called it
    // behind, and says so in a header of its own choosing (Forwarded, X-Real-IP, …), not always the
    // X-Forwarded-For that TRUSTED_PROXIES resolves. Any such header makes the request public.
    const secret = deps.config.metricsSecret;
    const local = isLoopback(request.socket.remoteAddress ?? '') && !relayedByProxy(request.headers);
    const trusted = local || (secret !== undefined && secretEquals(bearer(request) ?? '', secret));
    if (deps.config.hostedPlatformAppName && !trusted) return redactReadiness(readiness);
    return readiness;
  });

  app.get('/metrics', operational, async (request, reply) => {
    const secret = deps.config.metricsSecret;
    if (!secret) throw errors.routeNotFound('GET', '/metrics');
    await throttled(deps, request, async () => {
      if (!secretEquals(bearer(request) ?? '', secret)) throw errors.invalidMetricsSecret();
    });
    reply.type(deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
}

/** A string no origin is: where the origin goes in the document's JSON text. */
const ORIGIN_MARK = '\u0000origin\u0000';

function splitAtOrigin(json: string): { head: string; tail: string } {
  const mark = JSON.stringify(ORIGIN_MARK).slice(1, -1);
  const at = json.indexOf(mark);
  if (at < 0 || json.indexOf(mark, at + 1) >= 0)
    throw new Error('the OpenAPI document names its origin once');
  return { head: json.slice(0, at), tail: json.slice(at + mark.length) };
}

export function opsRoutes(app: FastifyInstance, deps: AppDeps): void {
  probeRoutes(app, deps);

  // Building the document costs about 6 ms of this event loop and needs no key, so it is built once,
  // with a mark where each request's origin goes (the address it was reached at, when SELFHOST_URL is
  // unset): a flood of /openapi.json, whatever its Host headers, costs a string join each.
  let served: { head: string; tail: string } | undefined;
  app.get('/openapi.json', operational, async (request, reply) => {
    served ??= splitAtOrigin(JSON.stringify(servedDocument(app.swagger(), ORIGIN_MARK)));
    const origin =
      (deps.config.server.publicUrl && withoutTrailingSlashes(deps.config.server.publicUrl)) ??
      `${request.protocol}://${request.host}`;
    reply.type('application/json; charset=utf-8');
    return `${served.head}${JSON.stringify(origin).slice(1, -1)}${served.tail}`;
  });
}
