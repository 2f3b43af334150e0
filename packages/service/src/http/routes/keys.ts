import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { issueApiKey, listApiKeys, revokeApiKey } from '../../access/keys.js';
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
    userId: z
      .string()
      .nullable()
      .describe('The user the key acts as, exactly (its role and access); null: it acts for the account'),
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
    userId: k.userId,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
  };
}

/** API keys of the account, managed by its signed-in owners and admins only (a key cannot mint keys). */
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
    async (req) => ({ keys: (await listApiKeys(deps, principalOf(req))).map(keyView) }),
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
        body: z.object({
          name: z.string().max(100).optional(),
          scopes: z.array(z.enum(SCOPES)).min(1),
          userId: z
            .string()
            .min(1)
            .max(320)
            .optional()
            .describe('A user id or e-mail: the key then acts exactly as that user'),
        }),
        response: { 201: z.object({ key: ApiKey, secret: z.string() }), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { key, secret } = await issueApiKey(deps, principalOf(req), {
        scopes: [...new Set(req.body.scopes)],
        name: req.body.name ?? null,
        user: req.body.userId,
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
    async (req) => keyView(await revokeApiKey(deps, principalOf(req), req.params.id)),
  );
}
