import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { RequestSpan, Tracer } from '../domain/tracing.js';
import { type Logger, loggerOfSpan } from '../logger.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span, when tracing is on. */
    traceSpan: RequestSpan | undefined;
  }
}

/**
 * Every request in a span (issue 43): started when it arrives, continuing the caller's
 * `traceparent`; its handler runs in it, so what the handler does (search stages, model calls,
 * jobs it enqueues) is part of its trace; ended with the route and the status once answered. The
 * request's log lines carry the trace and span ids. Registered before the routes: it wraps their
 * handlers as they are added.
 */
export function traceRequests(app: FastifyInstance, tracer: Tracer): void {
  const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched';
  app.decorateRequest('traceSpan', undefined);
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function traced(request, reply) {
      const span = request.traceSpan;
      return span ? span.run(() => handler.call(this, request, reply)) : handler.call(this, request, reply);
    };
  });
  app.addHook('onRequest', async (request) => {
    const span = tracer.startRequest({
      method: request.method,
      route: routeOf(request),
      url: request.url,
      headers: request.headers,
    });
    request.traceSpan = span;
    request.log = loggerOfSpan(request.log as Logger, span.ids) as FastifyBaseLogger;
  });
  app.addHook('onResponse', async (request, reply) =>
    request.traceSpan?.end({ route: routeOf(request), status: reply.statusCode }),
  );
  // The client went away before the answer: the span ends without a status.
  app.addHook('onRequestAbort', async (request) => request.traceSpan?.end({ route: routeOf(request) }));
}
