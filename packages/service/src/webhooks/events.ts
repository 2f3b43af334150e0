import type {
  DocumentRecord,
  DocumentStatus,
  RunStatus,
  RunView,
  WebhookEventType,
} from '../domain/types.js';
import { newId } from '../ids.js';

/**
 * The events of webhooks and the JSON they carry. An event is written to the outbox in the same
 * transaction as the state change it announces (adapters/postgres/outbox.ts), so its body is built
 * from the records of that transaction. Payloads are kept small (the Standard Webhooks advice): the
 * identifiers, the outcome and the counts; the API has the rest.
 */

/** A run's failures listed in its event; `counts.failed` says how many there are in all. */
export const EVENT_MAX_FAILURES = 20;

/** An event ready for the outbox: `body` is what is signed and sent on every attempt. */
export interface NewWebhookEvent {
  id: string;
  accountId: string;
  type: WebhookEventType;
  body: string;
}

export function runEventType(status: RunStatus): WebhookEventType | undefined {
  if (status === 'completed') return 'run.completed';
  if (status === 'failed') return 'run.failed';
  if (status === 'cancelled') return 'run.cancelled';
  return undefined;
}

/**
 * `document.ready` for a searchable document; `document.failed` for one that ended without text (a
 * failure, or a scan that needs OCR). Cancelled and deleted documents have no event of their own:
 * `run.cancelled` speaks for the first, and the second was the caller's own doing.
 */
export function documentEventType(status: DocumentStatus): WebhookEventType | undefined {
  if (status === 'ready') return 'document.ready';
  if (status === 'failed' || status === 'needs_ocr') return 'document.failed';
  return undefined;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function runEventData(run: RunView) {
  return {
    id: run.id,
    workspaceId: run.workspaceId,
    status: run.status,
    createdAt: run.createdAt.toISOString(),
    finishedAt: iso(run.finishedAt),
    sourceId: run.sourceId,
    error: run.error,
    counts: run.counts,
    failures: run.failures.slice(0, EVENT_MAX_FAILURES),
  };
}

export function documentEventData(doc: DocumentRecord) {
  return {
    id: doc.id,
    workspaceId: doc.workspaceId,
    runId: doc.runId,
    filename: doc.filename,
    sourceUrl: doc.sourceUrl,
    mediaType: doc.mediaType,
    status: doc.status,
    error: doc.errorCode ? { code: doc.errorCode, message: doc.errorMessage ?? '' } : null,
    pageCount: doc.pageCount,
    chunkCount: doc.chunkCount,
    finishedAt: iso(doc.finishedAt),
  };
}

/** The envelope of Standard Webhooks: `type`, `timestamp` (of the event) and `data`, plus our id. */
function event(accountId: string, type: WebhookEventType, at: Date, data: unknown): NewWebhookEvent {
  const id = newId('evt');
  return { id, accountId, type, body: JSON.stringify({ id, type, timestamp: at.toISOString(), data }) };
}

export function runEvent(run: RunView, type: WebhookEventType): NewWebhookEvent {
  return event(run.accountId, type, run.finishedAt ?? run.updatedAt, runEventData(run));
}

export function documentEvent(doc: DocumentRecord, type: WebhookEventType): NewWebhookEvent {
  return event(doc.accountId, type, doc.finishedAt ?? doc.updatedAt, documentEventData(doc));
}
