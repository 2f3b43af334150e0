import { PassThrough } from 'node:stream';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
  type RequestPayload,
} from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { checkInput } from './domain/input.js';
import { errors } from './errors.js';
import {
  capConnectionsPerAddress,
  capTotalConnections,
  connectionTimeouts,
  proxyMatcher,
} from './http/connections.js';
import { isConsoleNavigation, registerConsole } from './http/console.js';
import type { AppDeps } from './http/context.js';
import { toAppError } from './http/errors.js';
import { swaggerOptions } from './http/openapi.js';
import { documentRoutes } from './http/routes/documents.js';
import { evaluationRoutes } from './http/routes/evaluation.js';
import { ingestRoutes } from './http/routes/ingest.js';
import { keyRoutes } from './http/routes/keys.js';
import { mcpRoutes } from './http/routes/mcp.js';
import { oidcRoutes } from './http/routes/oidc.js';
import { openAiRoutes } from './http/routes/openai.js';
import { opsRoutes } from './http/routes/ops.js';
import { overviewRoutes } from './http/routes/overview.js';
import { peopleRoutes } from './http/routes/people.js';
import { quotaRoutes } from './http/routes/quotas.js';
import { runRoutes } from './http/routes/runs.js';
import { searchRoutes } from './http/routes/search.js';
import { sessionRoutes } from './http/routes/session.js';
import { sourceRoutes } from './http/routes/sources.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { workspaceRoutes } from './http/routes/workspaces.js';
import { traceRequests } from './http/tracing.js';
import { randomToken } from './ids.js';
import { UPLOAD_FIELDS } from './ingestion/form.js';

/**
 * A client's own request id (a UUID, a trace id, the SDK's `sdk_…`): 8 to 64 letters, digits and `._-`,
 * never in the server's own `req_` form, so that such an id in a log was always issued here. Anything
 * else is replaced by a generated id.
 */
const CLIENT_REQUEST_ID = /^(?!req_)[A-Za-z0-9][\w.-]{7,63}$/;

/**
 * A body other than an upload must arrive whole within `ms` (however it trickles in); an upload may
 * take as long as the request timeout allows, but may not pause for `ms`. Either way a body that stops
 * coming ends the request and frees its connection.
 */
/** How much of an unread body is read and dropped before an early answer, and for how long. */
const EARLY_ANSWER_DRAIN = { maxBytes: 1 << 20, timeoutMs: 2000 };

/** Reads and drops the rest of a request body; false when it is over the limits (then left unread). */
function drained(
  raw: FastifyRequest['raw'],
  { maxBytes, timeoutMs }: typeof EARLY_ANSWER_DRAIN,
): Promise<boolean> {
  if (raw.readableEnded || raw.destroyed) return Promise.resolve(raw.readableEnded);
  return new Promise((resolve) => {
    let bytes = 0;
    const done = (ok: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', onEnd).off('error', onError);
      if (!ok) raw.pause();
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) done(false);
    };
    const onEnd = () => done(true);
    const onError = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    raw.on('data', onData).on('end', onEnd).on('error', onError);
    raw.resume();
  });
}

function limitBodyTime(request: FastifyRequest, payload: RequestPayload, ms: number): RequestPayload {
  if (request.raw.complete) return payload;
  // isMultipart() is not known yet here: the content-type parser, which sets it, runs after this hook.
  if (/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '')) {
    // The upload route reads the request itself; an idle socket is destroyed by the HTTP server.
    const socket = request.raw.socket;
    socket.setTimeout(ms);
    request.raw.once('end', () => socket.setTimeout(0));
    return payload;
  }
  const body = new PassThrough();
  // Fastify listens for the error while it reads the body; a body nobody reads must not crash us.
  body.on('error', () => {});
  const timer = setTimeout(() => {
    payload.unpipe(body);
    body.destroy(errors.bodyTimeout(ms / 1000));
  }, ms);
  body.once('close', () => clearTimeout(timer));
  request.raw.once('close', () => clearTimeout(timer));
  payload.pipe(body);
  return body;
}

/**
 * How many connections the server may hold at once, from the process's limit on open files
 * (RLIMIT_NOFILE's soft limit): all but a reserve of a quarter, at least 256, for what the requests
 * themselves open (database pools, object storage, the index's files; in `serve` the worker's parser
 * processes too). A flood from many addresses, which the per-address cap does not stop, then fills
 * the connections and not the descriptors the answers need. No cap where the limit is unknown.
 */
export function serverConnectionCap(openFilesLimit: number | undefined): number | undefined {
  if (openFilesLimit === undefined) return undefined;
  return Math.max(64, openFilesLimit - Math.max(256, Math.floor(openFilesLimit / 4)));
}

/**
 * The HTTP application without listening, so tests inject requests and main/ binds the port.
 * `maxConnections` caps the connections it holds in all (serverConnectionCap); none when unset.
 */
export async function buildApp(
  deps: AppDeps,
  options: { maxConnections?: number | undefined } = {},
): Promise<FastifyInstance> {
  const { server } = deps.config;
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // One log line per request comes from the onResponse hook below, with the route pattern.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.limits.jsonBodyBytes,
    ...connectionTimeouts(server),
    // Forwarded headers are believed only from the configured proxies: anyone else could forge the
    // client address (sign-in limits, /ready's detail) and the scheme (the cookie's Secure flag).
    trustProxy: server.trustedProxies.length ? server.trustedProxies : false,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : `req_${randomToken(10)}`;
    },
  });
  // First: its hooks start the request's span before anything logs, and wrap every route's handler.
  if (deps.tracer) traceRequests(app, deps.tracer);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('principal', undefined);
  app.decorateRequest('session', undefined);
  await app.register(cookie);

  await app.register(swagger, swaggerOptions);
  await app.register(multipart, {
    throwFileSizeLimit: true,
    limits: {
      fileSize: deps.config.limits.maxFileBytes,
      files: deps.config.limits.maxFilesPerUpload,
      // No separate limit on parts: files and fields are each limited, with an error that names which.
      fields: UPLOAD_FIELDS.max,
      fieldSize: UPLOAD_FIELDS.maxBytes,
      headerPairs: 200,
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
  });
  if (server.maxConnectionsPerAddress > 0)
    capConnectionsPerAddress(
      app.server,
      server.maxConnectionsPerAddress,
      proxyMatcher(server.trustedProxies),
      (address) =>
        deps.log.warn(
          { address, max: server.maxConnectionsPerAddress },
          'refused connections over HTTP_MAX_CONNECTIONS_PER_ADDRESS (a reverse proxy belongs in TRUSTED_PROXIES)',
        ),
    );
  if (options.maxConnections !== undefined) {
    const max = options.maxConnections;
    capTotalConnections(app.server, max, () =>
      deps.log.warn(
        { max },
        'closed connections over the total cap, kept so that requests have descriptors left (the limit on open files)',
      ),
    );
  }
  app.addHook('preParsing', async (request, _reply, payload) =>
    limitBodyTime(request, payload, server.bodyTimeoutMs),
  );
  app.addHook('preValidation', async (request) => {
    checkInput(request.params, 'path');
    checkInput(request.query, 'query');
    checkInput(request.body, '');
  });
  app.addHook('onSend', async (request, reply) => {
    // Answered before the body was read (a refused key, a body too large or too slow): the answer
    // goes out at once, and the rest of a small body is read and dropped meanwhile. Closing on unread
    // data resets the connection, and the client (the SDK uploading with a key that lacks a scope)
    // would see a connection error instead of the answer. A large or slow body is not read: its
    // connection is closed once the drain gives up.
    if (!request.raw.complete) {
      const raw = request.raw;
      if (Number(raw.headers['content-length'] ?? 0) > EARLY_ANSWER_DRAIN.maxBytes)
        reply.header('connection', 'close');
      else void drained(raw, EARLY_ANSWER_DRAIN).then((ok) => ok || raw.socket?.destroy());
    }
    // API answers hold an account's data (documents, their text, the session's CSRF token): no
    // browser or proxy cache may keep them.
    if (request.url.startsWith('/v1/') && !reply.hasHeader('cache-control'))
      reply.header('cache-control', 'no-store');
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    deps.metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      seconds,
    );
    if (route !== '/health') {
      request.log.info(
        { method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request',
      );
    }
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const appError = toAppError(err);
    if (appError.status >= 500) request.log.error({ err }, 'request failed');
    else request.log.debug({ code: appError.code }, 'request rejected');
    for (const [k, v] of Object.entries(appError.headers)) reply.header(k, v);
    // Never a stack trace or an internal message in a response: the request id leads to the log line.
    return reply
      .code(appError.status)
      .type('application/json; charset=utf-8')
      .send({
        error: { code: appError.code, message: appError.message, requestId: request.id, ...appError.details },
      });
  });
  const consolePage = await registerConsole(app, deps.config.console.assetsDir, deps.log);
  app.setNotFoundHandler((request, reply) => {
    // The console's screens have their own URLs: a browser that opens or reloads one gets the page.
    if (consolePage && isConsoleNavigation(request)) return consolePage.send(reply);
    const e = errors.routeNotFound(request.method, request.url);
    return reply.code(404).send({ error: { code: e.code, message: e.message, requestId: request.id } });
  });

  opsRoutes(app, deps);
  ingestRoutes(app, deps);
  runRoutes(app, deps);
  searchRoutes(app, deps);
  openAiRoutes(app, deps);
  mcpRoutes(app, deps);
  workspaceRoutes(app, deps);
  documentRoutes(app, deps);
  sessionRoutes(app, deps);
  oidcRoutes(app, deps);
  keyRoutes(app, deps);
  peopleRoutes(app, deps);
  overviewRoutes(app, deps);
  quotaRoutes(app, deps);
  webhookRoutes(app, deps);
  sourceRoutes(app, deps);
  evaluationRoutes(app, deps);
  return app;
}
