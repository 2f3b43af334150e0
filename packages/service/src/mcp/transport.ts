import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP SDK's side of the HTTP route (http/routes/mcp.ts), so that the SDK is imported by the MCP
 * face alone (.dependency-cruiser.cjs, `mcp-sdk-only-in-mcp`).
 */

/** How many JSON-RPC requests (not notifications) a batch holds; 0 when the body is not a batch. */
export function requestsInBatch(body: unknown): number {
  return Array.isArray(body) ? body.filter((m) => isJSONRPCRequest(m)).length : 0;
}

/**
 * Answers one HTTP request with `server`, statelessly: no session id generator, and JSON responses
 * rather than a stream (no tool sends progress, so one JSON answer per POST). `send` turns the answer
 * into the reply while the server is connected; the server is closed after it, whatever happened.
 */
export async function answerStatelessly<T>(
  server: McpServer,
  request: Request,
  parsedBody: unknown,
  send: (answer: Response) => Promise<T>,
): Promise<T> {
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await send(await transport.handleRequest(request, { parsedBody }));
  } finally {
    await server.close();
  }
}
