import type {
  DocumentRecord,
  DocumentStatus,
  RunStatus,
  RunView,
  WebhookEventType,
} from '../domain/types.js';
import { documentView, pick, runView } from '../domain/views.js';
import type { EvaluationRecord, EvaluationStatus } from '../evaluation/store.js';
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

/** What a run's and a document's events carry of the API's views: the outcome, not the whole record. */
const RUN_EVENT_FIELDS = [
  'id',
  'workspaceId',
  'status',
  'createdAt',
  'finishedAt',
  'sourceId',
  'error',
  'counts',
  'failures',
] as const;
const DOCUMENT_EVENT_FIELDS = [
  'id',
  'workspaceId',
  'runId',
  'filename',
  'sourceUrl',
  'mediaType',
  'status',
  'error',
  'pageCount',
  'chunkCount',
  'finishedAt',
] as const;

export function runEventData(run: RunView) {
  const data = pick(runView(run), RUN_EVENT_FIELDS);
  return { ...data, failures: data.failures.slice(0, EVENT_MAX_FAILURES) };
}

export function documentEventData(doc: DocumentRecord) {
  return pick(documentView(doc), DOCUMENT_EVENT_FIELDS);
}

/** The envelope of Standard Webhooks: `type`, `timestamp` (of the event) and `data`, plus our id. */
function event(accountId: string, type: WebhookEventType, at: Date, data: unknown): NewWebhookEvent {
  const id = newId('evt');
  return { id, accountId, type, body: JSON.stringify({ id, type, timestamp: at.toISOString(), data }) };
}

/**
 * An evaluation that completed or failed (a cancelled one was its canceller's doing): its outcome and
 * each configuration's headline values; the API has intervals, groups and questions.
 */
export function evaluationEventType(status: EvaluationStatus): WebhookEventType | undefined {
  if (status === 'completed') return 'evaluation.completed';
  if (status === 'failed') return 'evaluation.failed';
  return undefined;
}

export function evaluationEventData(e: EvaluationRecord) {
  return {
    id: e.id,
    workspaceId: e.workspaceId,
    questionSetId: e.questionSetId,
    name: e.name,
    status: e.status,
    finishedAt: iso(e.finishedAt),
    error: e.error,
    results: (e.results ?? []).map((r) => ({
      configuration: r.configuration,
      metrics: Object.fromEntries(Object.entries(r.metrics).map(([k, m]) => [k, m ? m.value : null])),
    })),
  };
}

export function evaluationEvent(e: EvaluationRecord, type: WebhookEventType): NewWebhookEvent {
  return event(e.accountId, type, e.finishedAt ?? new Date(), evaluationEventData(e));
}

export function runEvent(run: RunView, type: WebhookEventType): NewWebhookEvent {
  return event(run.accountId, type, run.finishedAt ?? run.updatedAt, runEventData(run));
}

export function documentEvent(doc: DocumentRecord, type: WebhookEventType): NewWebhookEvent {
  return event(doc.accountId, type, doc.finishedAt ?? doc.updatedAt, documentEventData(doc));
}
