import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/openapi-types.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { openApiDocument } from '../../src/main/openapi.js';

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
}

/**
 * The OpenAPI document as generators and linters meet it (`npm run lint` runs Redocly's rules on it):
 * built from the routes alone, without a database.
 */
describe('the OpenAPI document', () => {
  const document = () =>
    openApiDocument(
      loadConfig({ SELFHOST_URL: 'https://docs.example.org/' }),
      createLogger('silent'),
    ) as Promise<{
      servers: { url: string }[];
      paths: Record<string, Record<string, Operation>>;
      components: { securitySchemes: Record<string, { type: string; in?: string; name?: string }> };
    }>;

  it('names every operation once, says who may call it, and where the service is', async () => {
    const doc = await document();
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, ...op })),
    );
    expect(operations.length).toBeGreaterThan(30);
    const ids = operations.map((o) => o.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.filter((o) => o.security === undefined).map((o) => o.route)).toEqual([]);
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'https://docs.example.org' })]);
    expect(doc.components.securitySchemes).toMatchObject({
      apiKey: { type: 'http' },
      session: { type: 'apiKey', in: 'cookie', name: 'docslurp_session' },
      csrfToken: { type: 'apiKey', in: 'header', name: 'x-csrf-token' },
    });
    // A session changes nothing without its CSRF token.
    const upload = doc.paths['/v1/ingest/bulk']!.post!;
    expect(upload.security).toEqual([{ apiKey: [] }, { session: [], csrfToken: [] }]);
  });

  it("describes the upload's files as binary, so tools offer a file picker", async () => {
    const doc = (await document()) as unknown as {
      paths: {
        '/v1/ingest/bulk': { post: { requestBody: { content: Record<string, { schema: unknown }> } } };
      };
    };
    const form = doc.paths['/v1/ingest/bulk'].post.requestBody.content['multipart/form-data']!.schema;
    expect(form).toMatchObject({
      required: ['files'],
      properties: { files: { type: 'array', items: { type: 'string', format: 'binary' } } },
    });
  });

  it('describes every response in words of its own, never "Default Response"', async () => {
    const doc = await document();
    const described = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) =>
        Object.entries(op.responses).map(([status, r]) => ({
          at: `${method.toUpperCase()} ${path} ${status}`,
          description: (r as { description?: string }).description ?? '',
        })),
      ),
    );
    expect(described.length).toBeGreaterThan(250);
    expect(described.filter((r) => !r.description || r.description === 'Default Response')).toEqual([]);
    expect(described.find((r) => r.at === 'GET /v1/runs/{id} 200')?.description).toBe(
      'OK: the run, with its status and document counts',
    );
    expect(described.find((r) => r.at === 'POST /v1/search 403')?.description).toMatch(/scope/);
  });

  it('declares the chat streams beside the JSON answers, so that a plain call types as JSON', async () => {
    const doc = await document();
    for (const [path, method] of [
      ['/v1/search/chat', 'post'],
      ['/v1/workspaces/{workspaceId}/openai/chat/completions', 'post'],
    ] as const) {
      const ok = (doc.paths[path] as Record<string, { responses: Record<string, unknown> }>)[method]!
        .responses['200'] as {
        description: string;
        content: Record<string, unknown>;
        'x-stream': { description: string; content: Record<string, unknown> };
      };
      expect(Object.keys(ok.content), path).toEqual(['application/json']);
      expect(Object.keys(ok['x-stream'].content), path).toEqual(['text/event-stream']);
      expect(ok['x-stream'].description).toMatch(/stream: true/);
      expect(ok.description).toMatch(/stream: true/);
    }
    const chat = doc.paths['/v1/search/chat']!.post!.responses['200'] as { description: string };
    expect(chat.description).toMatch(/stream: true.*`delta`.*`citations`.*`done`/);
  });

  it('describes the operator endpoints: /health, /ready, /metrics and itself', async () => {
    const doc = await document();
    for (const path of ['/health', '/ready', '/metrics', '/openapi.json']) {
      expect(doc.paths[path]?.get, path).toMatchObject({
        tags: ['ops'],
        responses: { 200: expect.anything() },
      });
    }
    expect(doc.paths['/metrics']!.get!.security).toEqual([{ metricsSecret: [] }]);
    expect(doc.paths['/ready']!.get!.responses['503']).toBeDefined();
  });

  it('is what the checked-in client types were generated from (npm run openapi:types)', async () => {
    expect(await readFile(CLIENT_TYPES_FILE, 'utf8')).toBe(await clientTypes());
  });
});
