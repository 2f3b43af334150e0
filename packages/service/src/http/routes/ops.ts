import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import { checkReadiness, redactReadiness, sharedReadiness } from '../../ops/readiness.js';
import { withoutTrailingSlashes } from '../../strings.js';
import { proxyMatcher } from '../connections.js';
import type { AppDeps } from '../context.js';
import { servedDocument } from '../openapi.js';
import { secretEquals } from '../secrets.js';

function bearer(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
}

function isLoopback(ip: string): boolean {
  return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1';
}

/** What the probes need: the server's deps, or a worker's (with its own readiness checks). */
export type ProbeDeps = Pick<AppDeps, 'config' | 'readinessChecks' | 'readyLimiter' | 'ops' | 'metrics'>;

const hide = { hide: true };

/** `/health`, `/ready` and `/metrics`, the same on the server's port and on a worker's. */
export function probeRoutes(app: FastifyInstance, deps: ProbeDeps): void {
  const fromTrustedProxy = proxyMatcher(deps.config.server.trustedProxies);
  app.get('/health', { schema: { ...hide } }, async () => ({ ok: true }));

  const readinessNow = sharedReadiness(() =>
    checkReadiness(deps.readinessChecks, () => deps.ops.schemaVersion()),
  );
  app.get('/ready', { schema: { ...hide } }, async (request, reply) => {
    // It needs no key, so the budget is per client address (the proxy's client behind TRUSTED_PROXIES).
    const allowed = await deps.readyLimiter.consume(`ready:${request.ip}`);
    if (!allowed.allowed) throw errors.rateLimited(allowed.retryAfterSeconds);
    const readiness = await readinessNow();
    reply.code(readiness.status === 'unavailable' ? 503 : 200).header('cache-control', 'no-store');
    // On a hosted platform the endpoint may be public: only loopback callers and holders of the
    // metrics secret see latencies, versions and error texts. A request that a proxy outside
    // TRUSTED_PROXIES relayed (a reverse proxy on the same host, say) comes from whoever called that
    // proxy, not from the loopback socket it arrived on: it is public.
    const secret = deps.config.metricsSecret;
    const relayed =
      request.headers['x-forwarded-for'] !== undefined &&
      !fromTrustedProxy(request.socket.remoteAddress ?? '');
    const trusted =
      (isLoopback(request.ip) && !relayed) ||
      (secret !== undefined && secretEquals(bearer(request) ?? '', secret));
    if (deps.config.hostedPlatformAppName && !trusted) return redactReadiness(readiness);
    return readiness;
  });

  app.get('/metrics', { schema: { ...hide } }, async (request, reply) => {
    const secret = deps.config.metricsSecret;
    if (!secret) throw errors.routeNotFound('GET', '/metrics');
    if (!secretEquals(bearer(request) ?? '', secret)) {
      throw errors.invalidMetricsSecret();
    }
    reply.type(deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
}

export function opsRoutes(app: FastifyInstance, deps: AppDeps): void {
  probeRoutes(app, deps);

  app.get('/openapi.json', { schema: { ...hide } }, async (request) =>
    servedDocument(
      app.swagger(),
      (deps.config.server.publicUrl && withoutTrailingSlashes(deps.config.server.publicUrl)) ??
        `${request.protocol}://${request.host}`,
    ),
  );
}
