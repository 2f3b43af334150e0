import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type QuotaReport, quotaReport, readAccountQuotas, setAccountQuotas } from '../../accounts/quotas.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { errorResponses } from '../schemas.js';

const Use = (what: string) =>
  z.object({
    limit: z.number().int().nullable().describe('The limit; null: unlimited'),
    used: z.number().int().describe(what),
  });

export const Quotas = z
  .object({
    documents: Use('Documents the account holds (every state but deleted)'),
    storedBytes: Use("Bytes of those documents' originals"),
    uploadsPerDay: Use('Files and URLs uploaded or ingested today (UTC); a sync adds none'),
    questionsPerDay: Use(
      'Questions answered today (UTC): chat, chat completions, MCP ask; searches are not counted',
    ),
    resetsAt: z.string().describe('When the daily counts start again: the next midnight UTC'),
  })
  .meta({ id: 'Quotas' });

/** A limit to set: a number, "unlimited", or null to follow the server's default (ACCOUNT_MAX_*). */
// OpenAPI 3.0 needs a type beside `nullable`, so null sits on the number.
const Change = z
  .union([z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable(), z.literal('unlimited')])
  .optional();

const QuotaChanges = z
  .object({
    documents: Change,
    storedBytes: Change.describe('In bytes'),
    uploadsPerDay: Change,
    questionsPerDay: Change,
  })
  .strict()
  .meta({ id: 'QuotaChanges' });

export function quotasView(r: QuotaReport) {
  return { ...r, resetsAt: r.resetsAt.toISOString() };
}

export function quotaRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/v1/quotas',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        operationId: 'getQuotas',
        tags: ['workspaces'],
        security: SECURITY.read,
        summary: "The caller's account: each quota's limit and what is used of it",
        response: { 200: Quotas, ...errorResponses },
      },
    },
    async (req) => quotasView(await quotaReport(deps, principalOf(req).accountId)),
  );

  const Params = z.object({ accountId: z.string().min(1).max(200).describe("The account's id or name") });
  api.get(
    '/v1/accounts/:accountId/quotas',
    {
      onRequest: authorize(deps, 'admin'),
      schema: {
        operationId: 'getAccountQuotas',
        tags: ['workspaces'],
        security: SECURITY.read,
        summary: "An account's quotas: its own for its owners and admins, any account's for the operator",
        params: Params,
        response: { 200: Quotas, ...errorResponses },
      },
    },
    async (req) => quotasView(await readAccountQuotas(deps, principalOf(req), req.params.accountId)),
  );

  api.patch(
    '/v1/accounts/:accountId/quotas',
    {
      onRequest: authorize(deps, 'admin'),
      schema: {
        operationId: 'setAccountQuotas',
        tags: ['workspaces'],
        security: SECURITY.write,
        summary:
          "Set an account's own limits (the operator only: SERVICE_BOOTSTRAP_API_KEY); null returns a quota to the server's default",
        params: Params,
        body: QuotaChanges,
        response: { 200: Quotas, ...errorResponses },
      },
    },
    async (req) => {
      const changes = Object.fromEntries(
        Object.entries(req.body)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, v === null ? 'default' : v === 'unlimited' ? null : v]),
      );
      return quotasView(await setAccountQuotas(deps, principalOf(req), req.params.accountId, changes));
    },
  );
}
