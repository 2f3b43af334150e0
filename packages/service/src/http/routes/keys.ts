import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey } from '../../domain/keys.js';
import { type ApiKeyRecord, SCOPES } from '../../domain/types.js';
import { type AppDeps, authorizeSession, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { errorResponses } from '../schemas.js';

const ApiKey = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    prefix: z.string().describe('The first characters of the key, to recognise it'),
    scopes: z.array(z.enum(SCOPES)),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });

function keyView(k: ApiKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
  };
}

/** API keys of the account, managed by signed-in console users only (a key cannot mint keys). */
export function keyRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['keys'] };

  api.get(
    '/v1/keys',
    {
      onRequest: authorizeSession(deps),
      schema: {
        ...common,
        operationId: 'listKeys',
        security: SECURITY.sessionRead,
        summary: 'API keys of the account',
        response: { 200: z.object({ keys: z.array(ApiKey) }), ...errorResponses },
      },
    },
    async (req) => ({ keys: (await listApiKeys(deps.accounts, principalOf(req))).map(keyView) }),
  );

  api.post(
    '/v1/keys',
    {
      onRequest: authorizeSession(deps),
      schema: {
        ...common,
        operationId: 'createKey',
        security: SECURITY.sessionWrite,
        summary: 'Create an API key; its secret is in this answer only',
        body: z.object({ name: z.string().max(100).optional(), scopes: z.array(z.enum(SCOPES)).min(1) }),
        response: { 201: z.object({ key: ApiKey, secret: z.string() }), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { key, secret } = await createApiKey(deps.accounts, {
        accountId: principalOf(req).accountId,
        scopes: [...new Set(req.body.scopes)],
        name: req.body.name ?? null,
      });
      reply.code(201).header('cache-control', 'no-store');
      return { key: keyView(key), secret };
    },
  );

  api.delete(
    '/v1/keys/:id',
    {
      onRequest: authorizeSession(deps),
      schema: {
        ...common,
        operationId: 'revokeKey',
        security: SECURITY.sessionWrite,
        summary: 'Revoke an API key',
        params: z.object({ id: z.string().max(100) }),
        response: { 200: ApiKey, ...errorResponses },
      },
    },
    async (req) => keyView(await revokeApiKey(deps.accounts, principalOf(req), req.params.id)),
  );
}
