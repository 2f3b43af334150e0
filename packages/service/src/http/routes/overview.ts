import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { getOverview } from '../../accounts/overview.js';
import { RUN_KINDS, RUN_STATUSES } from '../../domain/types.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { DocumentCounts, errorResponses } from '../schemas.js';
import { Quotas, quotasView } from './quotas.js';

const Overview = z
  .object({
    documents: DocumentCounts,
    runsProcessing: z.number().int(),
    activeRuns: z
      .array(
        z.object({
          id: z.string(),
          workspaceId: z.string(),
          status: z.enum(RUN_STATUSES),
          kind: z.enum(RUN_KINDS),
          sourceName: z
            .string()
            .nullable()
            .describe('The name of the source a sync run syncs, when it has one'),
          createdAt: z.string(),
          documents: z.number().int(),
          finished: z.number().int(),
        }),
      )
      .describe('Runs processing or paused, newest first (at most ten)'),
    recentFailures: z.array(
      z.object({
        documentId: z.string(),
        filename: z.string(),
        code: z.string(),
        message: z.string(),
        workspaceId: z.string(),
        runId: z.string(),
        failedAt: z.string(),
      }),
    ),
    quotas: Quotas.optional().describe(
      "Each quota's limit and use, for callers who see the whole account (keys, owners, admins); absent for other members",
    ),
  })
  .meta({ id: 'Overview' });

export function overviewRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/overview',
    {
      onRequest: authorize(deps, 'artifacts'),
      schema: {
        operationId: 'getOverview',
        tags: ['workspaces'],
        security: SECURITY.read,
        summary: 'The account at a glance: documents by state, runs in progress, recent failures, quotas',
        response: { 200: Overview, ...errorResponses },
      },
    },
    async (req) => {
      const { quotas, ...o } = await getOverview(deps, principalOf(req));
      return {
        ...o,
        activeRuns: o.activeRuns.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
        recentFailures: o.recentFailures.map((f) => ({ ...f, failedAt: f.failedAt.toISOString() })),
        ...(quotas ? { quotas: quotasView(quotas) } : {}),
      };
    },
  );
}
