import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../../domain/types.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
} from '../../webhooks/endpoints.js';
import { type AppDeps, authorize, principalOf } from '../context.js';
import { SECURITY } from '../openapi.js';
import { errorResponses } from '../schemas.js';
import { deliveryView, webhookView } from '../views.js';
import { WebhookDelivery, WebhookEndpoint } from '../webhook-schemas.js';

const Params = z.object({ id: z.string().min(1).max(100) });

/** Webhook endpoints of the account and their deliveries (docs/api.md#webhooks). */
export function webhookRoutes(app: FastifyInstance, deps: AppDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['webhooks'], security: SECURITY.read };
  const onRequest = authorize(deps, 'ingest');

  api.post(
    '/v1/webhooks',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'createWebhook',
        security: SECURITY.write,
        summary: 'Register an endpoint; its signing secret is in this answer only',
        body: z.object({
          url: z.string().min(1).max(2048),
          events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1),
          description: z.string().max(200).optional(),
        }),
        response: { 201: z.object({ webhook: WebhookEndpoint, secret: z.string() }), ...errorResponses },
      },
    },
    async (req, reply) => {
      const { webhook, secret } = await createWebhook(deps, principalOf(req), req.body);
      reply.code(201);
      return { webhook: webhookView(webhook), secret };
    },
  );

  api.get(
    '/v1/webhooks',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'listWebhooks',
        summary: "The account's webhook endpoints",
        response: { 200: z.object({ webhooks: z.array(WebhookEndpoint) }), ...errorResponses },
      },
    },
    async (req) => ({ webhooks: (await listWebhooks(deps.webhooks, principalOf(req))).map(webhookView) }),
  );

  api.get(
    '/v1/webhooks/:id',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'getWebhook',
        summary: 'A webhook endpoint',
        params: Params,
        response: { 200: WebhookEndpoint, ...errorResponses },
      },
    },
    async (req) => webhookView(await getWebhook(deps.webhooks, principalOf(req), req.params.id)),
  );

  api.delete(
    '/v1/webhooks/:id',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'deleteWebhook',
        security: SECURITY.write,
        summary: 'Delete an endpoint; deliveries still waiting are not sent',
        params: Params,
        response: { 200: WebhookEndpoint, ...errorResponses },
      },
    },
    async (req) => webhookView(await deleteWebhook(deps, principalOf(req), req.params.id)),
  );

  api.get(
    '/v1/webhooks/:id/deliveries',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'listWebhookDeliveries',
        summary: 'Deliveries to an endpoint, newest first, with every attempt',
        params: Params,
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(100).default(20),
          before: z.string().min(1).max(100).optional().describe('`next` of the previous page'),
          status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
        }),
        response: {
          200: z.object({
            deliveries: z.array(WebhookDelivery),
            next: z.string().nullable().describe('Pass as `before` for the next page; null on the last'),
          }),
          ...errorResponses,
        },
      },
    },
    async (req) => {
      const page = await listDeliveries(deps.webhooks, principalOf(req), req.params.id, req.query);
      return { deliveries: page.deliveries.map(deliveryView), next: page.next };
    },
  );

  api.post(
    '/v1/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'redeliverWebhook',
        security: SECURITY.write,
        summary: 'Send a delivery again now (same webhook-id), whatever became of it',
        params: Params.extend({ deliveryId: z.string().min(1).max(100) }),
        response: { 202: WebhookDelivery, ...errorResponses },
      },
    },
    async (req, reply) => {
      const delivery = await redeliver(deps.webhooks, principalOf(req), req.params.id, req.params.deliveryId);
      reply.code(202);
      return deliveryView(delivery);
    },
  );
}
