import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { errors } from './errors.js';
import { isConsoleNavigation, registerConsole } from './http/console.js';
import type { AppDeps } from './http/context.js';
import { toAppError } from './http/errors.js';
import { documentRoutes } from './http/routes/documents.js';
import { ingestRoutes } from './http/routes/ingest.js';
import { keyRoutes } from './http/routes/keys.js';
import { openAiRoutes } from './http/routes/openai.js';
import { opsRoutes } from './http/routes/ops.js';
import { overviewRoutes } from './http/routes/overview.js';
import { runRoutes } from './http/routes/runs.js';
import { searchRoutes } from './http/routes/search.js';
import { sessionRoutes } from './http/routes/session.js';
import { randomToken } from './ids.js';

const REQUEST_ID = /^[\w.:-]{1,64}$/;

/** The HTTP application without listening, so tests inject requests and main/ binds the port. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // One log line per request comes from the onResponse hook below, with the route pattern.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.limits.jsonBodyBytes,
    trustProxy: deps.config.mode === 'stack',
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomToken(10)}`;
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('principal', undefined);
  app.decorateRequest('session', undefined);
  await app.register(cookie);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'DocSlurp API',
        version: '1.0.0',
        description: 'Ingest documents into workspaces, search them with citations and get grounded answers.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (dsk_…)' } },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(multipart, {
    throwFileSizeLimit: true,
    limits: {
      fileSize: deps.config.limits.maxFileBytes,
      files: deps.config.limits.maxFilesPerUpload,
      fields: 20,
      fieldSize: 64 * 1024,
      parts: deps.config.limits.maxFilesPerUpload + 20,
      headerPairs: 200,
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
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
      .send({ error: { code: appError.code, message: appError.message, requestId: request.id } });
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
  documentRoutes(app, deps);
  sessionRoutes(app, deps);
  keyRoutes(app, deps);
  overviewRoutes(app, deps);
  return app;
}
