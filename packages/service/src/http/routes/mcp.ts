import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { getWorkspace } from '../../documents/documents.js';
import { errors } from '../../errors.js';
import { workspaceMcp } from '../../mcp/tools.js';
import { answerStatelessly, requestsInBatch } from '../../mcp/transport.js';
import { withoutTrailingSlashes } from '../../strings.js';
import { type AppDeps, authorize, limit, principalOf } from '../context.js';
import { toAppError } from '../errors.js';
import { SECURITY } from '../openapi.js';
import { ErrorBody, errorResponses } from '../schemas.js';

const publicOrigin = (url: string | undefined) => url && withoutTrailingSlashes(url);

/** Resource links in tool results arrived with this revision of the MCP specification. */
const RESOURCE_LINKS_SINCE = '2025-06-18';
/** Most messages in one JSON-RPC batch (each is counted by the rate limit too). */
export const MCP_MAX_BATCH = 10;
/** Most bytes one MCP request may answer, whatever its batch asked for. */
export const MCP_MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** The request as the SDK's web-standard transport reads it; the body is already parsed. */
function webRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(`${req.protocol}://${req.host}${req.url}`, { method: req.method, headers });
}

/**
 * A Model Context Protocol server per workspace (Streamable HTTP). Stateless: every POST is
 * authenticated, rate-limited and answered on its own by a server made for that caller, so nothing is
 * held between requests and any server process can answer (docs/api.md#mcp-server-scopes-search-and-artifacts).
 */
export function mcpRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const serverFor = workspaceMcp(deps, deps.config.limits);
  const url = '/v1/workspaces/:workspaceId/mcp';
  const common = {
    tags: ['mcp'],
    params: z.object({ workspaceId: z.string().min(1).max(100) }),
  };
  // Search tools need "search", document tools "artifacts"; each tool checks its own.
  const onRequest = authorize(deps, ['search', 'artifacts']);

  api.post(
    url,
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'mcp',
        security: SECURITY.write,
        summary: 'MCP (Streamable HTTP, stateless): a JSON-RPC message in, its JSON response out',
        body: z.unknown().describe('A JSON-RPC message of the Model Context Protocol'),
        response: {
          200: {
            description:
              'The JSON-RPC response (tool errors are results with isError: true); a notification alone is answered 202 without a body',
            content: { 'application/json': { schema: z.unknown() } },
          },
          ...errorResponses,
        },
      },
    },
    async (req, reply) => {
      const principal = principalOf(req);
      const workspace = await getWorkspace(deps, principal, req.params.workspaceId);
      if (Array.isArray(req.body) && req.body.length > MCP_MAX_BATCH)
        throw errors.invalidRequest(
          `An MCP batch holds at most ${MCP_MAX_BATCH} messages; this one has ${req.body.length}.`,
        );
      // The hook counted this request; each further request of a batch counts too.
      const batched = requestsInBatch(req.body);
      for (let i = 1; i < batched; i++) await limit(deps, principal, reply);

      const version = req.headers['mcp-protocol-version'];
      const server = serverFor({
        principal,
        workspace,
        consoleOrigin: publicOrigin(deps.config.server.publicUrl) ?? `${req.protocol}://${req.host}`,
        resourceLinks: typeof version === 'string' && version >= RESOURCE_LINKS_SINCE,
        requestId: req.id,
        describeError: (err) => {
          const e = toAppError(err as FastifyError);
          if (e.status >= 500) req.log.error({ err }, 'MCP request failed');
          return e;
        },
      });
      return answerStatelessly(server, webRequest(req), req.body, async (answer) => {
        const text = await answer.text();
        const bytes = Buffer.byteLength(text);
        if (bytes > MCP_MAX_ANSWER_BYTES)
          throw errors.invalidRequest(
            `The answer would be ${Math.ceil(bytes / 2 ** 20)} MB, more than the ${MCP_MAX_ANSWER_BYTES / 2 ** 20} MB one MCP request may return: send fewer messages at once, or read less at a time (maxChars).`,
          );
        reply.code(answer.status);
        answer.headers.forEach((value, name) => {
          if (name !== 'content-length') reply.header(name, value);
        });
        return reply.send(text);
      });
    },
  );

  // Without sessions there is no stream for the server to push on (GET) and nothing to end (DELETE).
  // They never succeed: redocly.yaml's ignore list names them for the missing 2xx.
  for (const [method, operationId, security] of [
    ['GET', 'mcpStream', SECURITY.read],
    ['DELETE', 'mcpEndSession', SECURITY.write],
  ] as const) {
    api.route({
      method,
      url,
      onRequest,
      schema: {
        ...common,
        operationId,
        security,
        summary: 'Not offered: the MCP server is stateless (405)',
        response: { ...errorResponses, 405: ErrorBody },
      },
      handler: async (req, reply) => {
        await getWorkspace(deps, principalOf(req), req.params.workspaceId);
        reply.header('allow', 'POST');
        throw errors.methodNotAllowed(req.method);
      },
    });
  }
}
