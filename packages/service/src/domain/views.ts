import type { DocumentRecord, RunView } from './types.js';

/**
 * Runs and documents as every face shows them: the API's JSON (dates as ISO strings, internal fields
 * left out), from which webhook payloads and the MCP tools take the fields they carry, so that a
 * field reads the same wherever a caller meets it (as the citation shape does, shapes.ts).
 */

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The fields `keys` of a view, in that order. */
export function pick<T extends object, K extends keyof T>(view: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, view[k]])) as Pick<T, K>;
}

/**
 * Documents per second and the estimated seconds until the run is done, at the pace of its last
 * minute of work. Null when there is nothing to go by (nothing processed in that minute) or nothing
 * to estimate (a paused run); a finished run reports its overall pace and 0 seconds left.
 */
export function runPace(run: RunView): { documentsPerSecond: number | null; etaSeconds: number | null } {
  const a = run.activity;
  if (run.status !== 'processing' && run.status !== 'paused') {
    return { documentsPerSecond: a.busySeconds > 0 ? a.processed / a.busySeconds : null, etaSeconds: 0 };
  }
  if (run.status === 'paused' || a.recentlyProcessed === 0 || a.windowSeconds <= 0) {
    return { documentsPerSecond: null, etaSeconds: null };
  }
  const documentsPerSecond = a.recentlyProcessed / a.windowSeconds;
  const left = run.counts.queued + run.counts.processing;
  return { documentsPerSecond, etaSeconds: Math.ceil(left / documentsPerSecond) };
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
