import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CSRF_HEADER, SESSION_COOKIE } from '../domain/sessions.js';
import { QuestionSetCreateDocumented } from './evaluation-views.js';
import { streamsBesideJson } from './openapi-streams.js';

/**
 * The OpenAPI document served at /openapi.json, built from the routes' own schemas. `npm run lint`
 * checks it with Redocly's recommended rules (redocly.yaml), and a client generated from it with
 * openapi-typescript is used against the real service in the tests; the SDK's records are derived from
 * the same generated types (packages/sdk/src/generated/openapi.ts).
 */

/** Who may call an operation, as the document names it: the schemes below, any one of the lists. */
export const SECURITY = {
  /** An API key, or a console session (reads need no CSRF token). */
  read: [{ apiKey: [] }, { session: [] }],
  /** An API key, or a console session with its CSRF token (every state-changing request). */
  write: [{ apiKey: [] }, { session: [], csrfToken: [] }],
  /** A console session only (API keys are refused: key management). */
  sessionRead: [{ session: [] }],
  sessionWrite: [{ session: [], csrfToken: [] }],
  /** No credentials (signing in, the list of formats). */
  none: [],
};

export const swaggerOptions: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.0.3',
    info: {
      title: 'DocSlurp API',
      version: '1.0.0',
      description:
        'Ingest documents into workspaces, search them with citations and get grounded answers. Errors have the body `{"error": {"code", "message", "requestId"}}` (docs/api.md lists every code).',
    },
    tags: [
      { name: 'ingest', description: 'Uploads, URLs and the formats the service reads' },
      { name: 'runs', description: 'Processing runs: progress, pause, resume, cancel' },
      { name: 'search', description: 'Passages with citations, and grounded answers' },
      { name: 'workspaces', description: 'Workspaces: create, list, rename, delete; the account overview' },
      { name: 'documents', description: 'Documents, their extracted text and original bytes' },
      { name: 'openai', description: 'The OpenAI-compatible chat of a workspace' },
      { name: 'mcp', description: 'The Model Context Protocol server of a workspace' },
      { name: 'session', description: 'Signing in to the web console' },
      { name: 'keys', description: 'API keys (console sessions of owners and admins only)' },
      {
        name: 'people',
        description: "The account's users, roles and groups, and its audit log (owners and admins)",
      },
      {
        name: 'webhooks',
        description: 'Endpoints told when runs and documents finish, and their deliveries',
      },
      { name: 'sources', description: 'Buckets, websites and folders a workspace stays in sync with' },
      { name: 'evaluation', description: "Question sets, and evaluations of a workspace's answers on them" },
      { name: 'ops', description: 'Liveness, readiness, metrics and this document, for operators and tools' },
    ],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (dsk_…) with the scope named on each operation',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: 'A console session (POST /v1/session sets the cookie); acts with every scope',
        },
        metricsSecret: {
          type: 'http',
          scheme: 'bearer',
          description: 'The METRICS_SECRET of the service (GET /metrics; full details on GET /ready)',
        },
        csrfToken: {
          type: 'apiKey',
          in: 'header',
          name: CSRF_HEADER,
          description:
            "The session's CSRF token (from POST or GET /v1/session), on every state-changing request",
        },
      },
    },
  },
  transform: jsonSchemaTransform,
  transformObject: jsonSchemaTransformObject,
};

/** The upload's multipart body: the handler reads its parts as a stream, so no route schema has it. */
export const UploadForm = z
  .object({
    workspaceId: z.string().optional().describe('Append to this workspace; a new one is created when absent'),
    workspaceName: z
      .string()
      .optional()
      .describe('Name of the workspace the upload creates (not with workspaceId)'),
    idempotencyKey: z
      .string()
      .max(255)
      .optional()
      .describe('Replays with the same key and content return the same records'),
    metadata: z.string().optional().describe('JSON object stored on every document of this upload'),
    access: z
      .string()
      .optional()
      .describe(
        'JSON {"users": [...], "groups": [...]} (user ids or e-mails, group ids or names): who of the workspace\'s readers may read these documents; left out or null, all of them',
      ),
    files: z
      .array(z.string())
      .min(1)
      .describe(
        'One or more file parts (field "files", repeatable; "file" is accepted too); send them after the other fields',
      ),
  })
  .describe('multipart/form-data');

/** A question set sent as a file (the handler reads the form; no route schema has it). */
const QuestionSetForm = z
  .object({
    name: z
      .string()
      .max(200)
      .optional()
      .describe("The set's name; the file's name without its extension when left out"),
    file: z.string().describe('One JSONL, CSV or JSON file of questions (docs/evaluation.md), up to 8 MiB'),
  })
  .describe('multipart/form-data');

interface Response {
  description?: string;
  content?: Record<string, { schema?: unknown }>;
}
interface Operation {
  summary?: string;
  requestBody?: unknown;
  responses?: Record<string, Response>;
}
interface Document {
  servers?: { url: string; description?: string }[];
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
}

/** Every `$ref` in a value, as the name of the component schema it points to. */
function refsIn(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsIn(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') into.add(v.replace('#/components/schemas/', ''));
      else refsIn(v, into);
    }
  }
  return into;
}

/**
 * What an error status means, whichever operation answers it. The body is always the error body; its
 * code says exactly what happened (docs/api.md lists every code).
 */
const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: 'The request is not valid (a parameter, a field or the body); the error code and message say which',
  401: 'No credentials, or an API key or session that is not (or no longer) valid',
  403: 'The credentials do not allow this: an API key without the scope it needs, or a session request without its CSRF token',
  404: 'Nothing with that id in this account',
  405: 'This operation does not apply to this resource in its present state',
  408: 'The request did not arrive in time (HTTP_BODY_TIMEOUT_SECONDS, HTTP_REQUEST_TIMEOUT_SECONDS)',
  409: 'The request conflicts with the present state of the resource; the error code says how',
  413: 'Over a size limit: the body, a file or the number of files',
  415: 'A file no worker can read; the message names each such file and GET /v1/formats lists what is read',
  429: 'Too many requests: try again after the seconds in Retry-After',
  503: 'A dependency (database, object storage) is unavailable; try again later',
};

const SUCCESS_WORDS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: the work goes on in the background',
  204: 'Done, with no body',
};

/** What a successful answer holds, by the name of the schema it is declared with. */
const SCHEMA_DESCRIPTIONS: Record<string, string> = {
  UploadResponse: 'the workspace, the run that processes the documents, and the documents',
  Formats: 'the formats read, with their extensions and media types, and what an upload refuses',
  Run: 'the run, with its status and document counts',
  RunProgress: 'the run, with the stage and any error of each document',
  SearchResponse: 'the passages, best first, each with its citation',
  ChatResponse: 'the answer, with the citations its [n] markers point to',
  WorkspaceSummary: 'the workspaces, each with its name and document counts',
  Workspace: 'the workspace',
  WorkspaceDeletion: 'the workspace deleted, with what went with it',
  Document: 'the document (or documents), with status, format and page count',
  Availability: 'which documents search covers now and which are still being indexed',
  Session: 'the signed-in user and the CSRF token to send on changes',
  ApiKey: 'the API key (or keys); the secret only when it is created',
  Overview: 'the account at a glance',
  WebhookEndpoint: 'the webhook endpoint (or endpoints); the signing secret only when it is created',
  WebhookDelivery: 'the delivery (or deliveries), with every attempt',
  Source: 'the source (or sources), with its last and next sync',
};

/**
 * Every response described: the routes declare the body's schema, and the swagger plugin calls a
 * response without its own description "Default Response", which tells a reader nothing.
 */
function describeResponses(doc: Document): void {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(operations) as Operation[]) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (response.description !== 'Default Response') continue;
        const error = ERROR_DESCRIPTIONS[status];
        if (error) {
          response.description = error;
          continue;
        }
        const [schema] = [...refsIn(response.content, new Set())];
        const what = (schema && SCHEMA_DESCRIPTIONS[schema]) ?? op.summary ?? 'the result';
        response.description = `${SUCCESS_WORDS[status] ?? `HTTP ${status}`}: ${what}`;
      }
    }
  }
}

/** GET /ready's body (states only, for a public caller on a hosted platform). */
const READINESS = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ready', 'degraded', 'unavailable'] },
    checks: {
      type: 'object',
      description: 'One entry per dependency (database, objectStorage, …)',
      additionalProperties: {
        type: 'object',
        required: ['ok'],
        properties: {
          ok: { type: 'boolean' },
          critical: { type: 'boolean' },
          latencyMs: { type: 'integer' },
          error: { type: 'string' },
        },
      },
    },
    schemaVersion: { type: 'integer', description: 'The database schema version, when the database answers' },
  },
};

const errorBody = { $ref: '#/components/schemas/Error' };
const json = (schema: unknown) => ({ 'application/json': { schema } });

/**
 * The operator endpoints, which the routes keep out of the generated document (they answer without
 * the API's authentication and rate limit): described here for tools and operators.
 */
const OPS_PATHS = {
  '/health': {
    get: {
      operationId: 'health',
      tags: ['ops'],
      security: [],
      summary: 'Liveness: the process answers (dependencies are not checked; see /ready)',
      responses: {
        200: {
          description: 'The process is up',
          content: json({
            type: 'object',
            required: ['ok'],
            properties: { ok: { type: 'boolean', enum: [true] } },
          }),
        },
      },
    },
  },
  '/ready': {
    get: {
      operationId: 'ready',
      tags: ['ops'],
      security: [{}, { metricsSecret: [] }],
      summary:
        'Readiness: each dependency checked (within 3 s; callers within a second of a check share its answer). With HOSTED_PLATFORM_APP_NAME set, only loopback callers that no proxy relayed and holders of the metrics secret see latencies, errors and the schema version',
      responses: {
        200: {
          description: 'Ready, or degraded (a non-critical dependency failed)',
          content: json(READINESS),
        },
        429: {
          description:
            'Too many calls from this address (READY_RATE_LIMIT_PER_MINUTE): try again after the seconds in Retry-After',
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
          content: json(errorBody),
        },
        503: {
          description: 'Unavailable: a critical dependency (the database) failed',
          content: json(READINESS),
        },
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      tags: ['ops'],
      security: [{ metricsSecret: [] }],
      summary: 'Prometheus metrics (only when METRICS_SECRET is set)',
      responses: {
        200: {
          description: 'The metrics in the Prometheus text format',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        401: { description: 'No bearer token, or not the metrics secret', content: json(errorBody) },
        404: { description: 'METRICS_SECRET is not set: there are no metrics', content: json(errorBody) },
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'openApiDocument',
      tags: ['ops'],
      security: [],
      summary: 'This document',
      responses: {
        200: { description: 'The OpenAPI 3.0 document of the API', content: json({ type: 'object' }) },
      },
    },
  },
};

/**
 * The document as served: the swagger plugin's, with the upload's multipart body (files as binary, so
 * tools offer a file picker), the origin clients reach the service at, and without the schemas no
 * operation uses (the zod provider registers an "Input" twin of every named schema).
 */
export function servedDocument(generated: unknown, origin: string): unknown {
  const doc = structuredClone(generated) as Document;
  doc.servers = [
    { url: origin, description: 'This service (SELFHOST_URL, or the address it was reached at)' },
  ];
  const upload = doc.paths?.['/v1/ingest/bulk']?.post as Operation | undefined;
  if (upload) {
    const form = z.toJSONSchema(UploadForm, { target: 'openapi-3.0' }) as unknown as {
      properties: { files: { items: Record<string, unknown> } };
    };
    form.properties.files.items = { type: 'string', format: 'binary' };
    upload.requestBody = {
      required: true,
      content: {
        'multipart/form-data': { schema: form },
      },
    };
  }
  const questionSets = doc.paths?.['/v1/workspaces/{id}/question-sets']?.post as Operation | undefined;
  if (questionSets) {
    const file = z.toJSONSchema(QuestionSetForm, { target: 'openapi-3.0' }) as unknown as {
      properties: { file: Record<string, unknown> };
    };
    file.properties.file = { ...file.properties.file, type: 'string', format: 'binary' };
    questionSets.requestBody = {
      required: true,
      content: {
        'application/json': {
          schema: z.toJSONSchema(QuestionSetCreateDocumented, { target: 'openapi-3.0', io: 'input' }),
        },
        'multipart/form-data': { schema: file },
      },
    };
  }
  describeResponses(doc);
  streamsBesideJson(doc);
  doc.paths = { ...doc.paths, ...OPS_PATHS };
  const schemas = doc.components?.schemas;
  if (schemas) {
    // Reachable from the operations, through schemas that refer to others.
    const used = refsIn(doc.paths, new Set());
    for (let grew = true; grew; ) {
      const before = used.size;
      for (const name of [...used]) refsIn(schemas[name], used);
      grew = used.size > before;
    }
    for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  }
  return doc;
}
