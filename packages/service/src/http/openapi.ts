import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CSRF_HEADER, SESSION_COOKIE } from '../domain/sessions.js';

/**
 * The OpenAPI document served at /openapi.json, built from the routes' own schemas. `npm run lint`
 * checks it with Redocly's recommended rules (redocly.yaml), and a client generated from it with
 * openapi-typescript is used against the real service in the tests (test/types/openapi.d.ts).
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
      { name: 'keys', description: 'API keys (console sessions only)' },
      {
        name: 'webhooks',
        description: 'Endpoints told when runs and documents finish, and their deliveries',
      },
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
    files: z
      .array(z.string())
      .min(1)
      .describe(
        'One or more file parts (field "files", repeatable; "file" is accepted too); send them after the other fields',
      ),
  })
  .describe('multipart/form-data');

interface Operation {
  requestBody?: unknown;
}
interface Document {
  servers?: { url: string; description?: string }[];
  paths?: Record<string, Record<string, Operation>>;
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
 * The document as served: the swagger plugin's, with the upload's multipart body (files as binary, so
 * tools offer a file picker), the origin clients reach the service at, and without the schemas no
 * operation uses (the zod provider registers an "Input" twin of every named schema).
 */
export function servedDocument(generated: unknown, origin: string): unknown {
  const doc = structuredClone(generated) as Document;
  doc.servers = [
    { url: origin, description: 'This service (SELFHOST_URL, or the address it was reached at)' },
  ];
  const upload = doc.paths?.['/v1/ingest/bulk']?.post;
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
