import type { WebhookDelivery, WebhookEndpoint, Workspace } from '../domain/types.js';

/**
 * Domain records → API JSON (dates as ISO strings, internal fields left out). Runs and documents,
 * which webhooks and MCP show too, have their views in domain/views.ts.
 */

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function workspaceView(w: Workspace) {
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    metadata: w.metadata,
    language: w.language,
    languages: w.languages,
    access: w.access,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

export function webhookView(w: WebhookEndpoint) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    createdAt: w.createdAt.toISOString(),
    deliveries: w.deliveries,
  };
}

export function deliveryView(d: WebhookDelivery) {
  return {
    id: d.id,
    webhookId: d.endpointId,
    // Stored as the exact bytes that were signed; its shape is the WebhookEvent schema.
    event: JSON.parse(d.body),
    status: d.status,
    nextAttemptAt: iso(d.nextAttemptAt),
    createdAt: d.createdAt.toISOString(),
    finishedAt: iso(d.finishedAt),
    attempts: d.attempts.map((a) => ({
      number: a.number,
      manual: a.manual,
      startedAt: a.startedAt.toISOString(),
      finishedAt: iso(a.finishedAt),
      statusCode: a.statusCode,
      error: a.error,
      response: a.response,
    })),
  };
}
