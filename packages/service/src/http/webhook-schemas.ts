import { z } from 'zod';
import {
  DOCUMENT_STATUSES,
  RUN_STATUSES,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
} from '../domain/types.js';
import { WebhookEvaluationEvent } from './evaluation-views.js';
import { DocumentCounts, DocumentError, RunFailure } from './schemas.js';

/** JSON shapes of webhook endpoints, their events and deliveries (docs/webhooks.md). */
export const WebhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    description: z.string().nullable(),
    createdAt: z.string(),
    deliveries: z
      .object({ pending: z.number().int(), succeeded: z.number().int(), failed: z.number().int() })
      .describe('Deliveries to this endpoint by status'),
  })
  .meta({ id: 'WebhookEndpoint' });

/** `data` of the run events: the run's outcome and counts (its first 20 failures). */
export const WebhookRunData = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    status: z.enum(RUN_STATUSES),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
    sourceId: z.string().nullable().describe('The source a sync run synced; null for uploads and URL lists'),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .describe('Why a sync run failed as a whole (docs/api.md#sources); null otherwise'),
    counts: DocumentCounts,
    failures: z.array(RunFailure).describe('The first 20 failed documents; counts.failed has them all'),
  })
  .meta({ id: 'WebhookRunData' });

/** `data` of the document events. */
export const WebhookDocumentData = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    runId: z.string(),
    filename: z.string(),
    sourceUrl: z.string().nullable(),
    mediaType: z.string().nullable(),
    status: z.enum(DOCUMENT_STATUSES),
    error: DocumentError,
    pageCount: z.number().int().nullable(),
    chunkCount: z.number().int().nullable(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'WebhookDocumentData' });

/** The JSON body of a delivery (what is signed), also shown with each delivery. */
export const WebhookEvent = z
  .union([
    z.object({
      id: z.string(),
      type: z.enum(['run.completed', 'run.failed', 'run.cancelled']),
      timestamp: z.string(),
      data: WebhookRunData,
    }),
    z.object({
      id: z.string(),
      type: z.enum(['document.ready', 'document.failed']),
      timestamp: z.string(),
      data: WebhookDocumentData,
    }),
    WebhookEvaluationEvent,
  ])
  .meta({ id: 'WebhookEvent' });

export const WebhookAttempt = z
  .object({
    number: z.number().int(),
    manual: z.boolean().describe('Started by a redelivery, not by the retry schedule'),
    startedAt: z.string(),
    finishedAt: z.string().nullable().describe('Null while the attempt is in flight'),
    statusCode: z.number().int().nullable().describe("The receiver's HTTP status; null without an answer"),
    error: z.string().nullable().describe('Why the attempt failed; null on success'),
    response: z.string().nullable().describe("The start of the receiver's answer"),
  })
  .meta({ id: 'WebhookAttempt' });

export const WebhookDelivery = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    event: WebhookEvent,
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    nextAttemptAt: z.string().nullable().describe('When the next attempt is due (pending deliveries)'),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
    attempts: z.array(WebhookAttempt),
  })
  .meta({ id: 'WebhookDelivery' });
