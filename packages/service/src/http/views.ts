import type {
  DocumentRecord,
  RunView,
  WebhookDelivery,
  WebhookEndpoint,
  Workspace,
} from '../domain/types.js';
import { runPace } from '../runs/runs.js';

/** Domain records → API JSON (dates as ISO strings, internal fields left out). */

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

export function runView(r: RunView) {
  const pace = runPace(r);
  return {
    id: r.id,
    workspaceId: r.workspaceId,
    status: r.status,
    kind: r.kind,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    finishedAt: iso(r.finishedAt),
    sourceId: r.sourceId,
    error: r.error,
    skipped: r.skipped ?? null,
    changes: r.changes ?? null,
    counts: r.counts,
    failures: r.failures,
    reprocessedBy: r.reprocessedBy ?? [],
    documentsPerSecond: pace.documentsPerSecond === null ? null : Number(pace.documentsPerSecond.toFixed(2)),
    etaSeconds: pace.etaSeconds,
  };
}

export function documentView(d: DocumentRecord) {
  return {
    id: d.id,
    workspaceId: d.workspaceId,
    runId: d.runId,
    filename: d.filename,
    sourceUrl: d.sourceUrl,
    mediaType: d.mediaType,
    declaredMediaType: d.declaredMediaType,
    sizeBytes: d.sizeBytes,
    sha256: d.sha256,
    status: d.status,
    stage: d.stage,
    error: d.errorCode ? { code: d.errorCode, message: d.errorMessage ?? '' } : null,
    pageCount: d.pageCount,
    chunkCount: d.chunkCount,
    language: d.language,
    metadata: d.metadata,
    source: d.sourceId,
    sourceItem: d.sourceItem,
    version: d.version,
    access: d.access,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    finishedAt: iso(d.finishedAt),
  };
}

export function progressView(run: RunView, documents: DocumentRecord[]) {
  const finished = run.counts.total - run.counts.queued - run.counts.processing;
  return {
    ...runView(run),
    progress: run.counts.total === 0 ? 1 : finished / run.counts.total,
    done: run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled',
    // The one document view every route answers with (issue 43: a shorter one here left a client
    // reading `version`, `pageCount` and `chunkCount` of a progress listing with nothing).
    documents: documents.map(documentView),
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
