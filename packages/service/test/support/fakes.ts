/**
 * In-memory stand-ins for the work store and the search index (and, in fake-workspaces.ts, the
 * workspace store), for unit tests of the pipeline and of uploads. They keep the rules the PostgreSQL repositories and LanceDB keep (a
 * lease held by one worker, terminal states, a run settled when its last document finishes, one row
 * set per document) so that a test of a branch meets the same answers it would in production;
 * integration tests cover the real ones.
 */

import type {
  IndexHit,
  IndexQuery,
  IndexRow,
  SearchIndex,
  VectorRow,
  VectorSpace,
} from '../../src/domain/ports.js';
import type { ClaimResult, FinishDocument, WorkStore } from '../../src/domain/stores.js';
import {
  type DocumentRecord,
  type DocumentStage,
  type RunStatus,
  TERMINAL_DOCUMENT_STATUSES,
} from '../../src/domain/types.js';
import type { DocumentFailureCode } from '../../src/errors.js';

interface HeldDocument {
  record: DocumentRecord;
  leaseOwner: string | null;
  leaseExpiresAt: number;
  fetchHeaders: string | null;
}

export function documentRecord(
  fields: Partial<DocumentRecord> & { id: string; runId: string },
): DocumentRecord {
  const now = new Date();
  return {
    accountId: 'acc_test',
    workspaceId: 'ws_test',
    filename: `${fields.id}.md`,
    sourceUrl: null,
    declaredMediaType: null,
    mediaType: null,
    sizeBytes: 0,
    sha256: null,
    storageKey: `raw/${fields.id}`,
    status: 'queued',
    stage: 'queued',
    errorCode: null,
    errorMessage: null,
    pageCount: null,
    chunkCount: null,
    metadata: {},
    attempts: 0,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
    ...fields,
  };
}

/** The worker's view of documents and runs, with leases that expire on the given clock. */
export class MemoryWorkStore implements WorkStore {
  readonly documents = new Map<string, HeldDocument>();
  readonly runs = new Map<string, { status: RunStatus }>();
  /** Milliseconds; tests move it forward to let leases expire. */
  now = 1_000_000;

  addRun(runId: string, status: RunStatus = 'processing'): void {
    this.runs.set(runId, { status });
  }

  addDocument(record: DocumentRecord, fetchHeaders: string | null = null): void {
    if (!this.runs.has(record.runId)) this.addRun(record.runId);
    this.documents.set(record.id, {
      record: { ...record },
      leaseOwner: null,
      leaseExpiresAt: 0,
      fetchHeaders,
    });
  }

  document(id: string): DocumentRecord {
    return this.held(id).record;
  }

  /** Another worker takes the document over (as after this one's lease expired). */
  takeOver(id: string, workerId: string): void {
    const d = this.held(id);
    d.leaseOwner = workerId;
    d.leaseExpiresAt = this.now + 60_000;
  }

  private held(id: string): HeldDocument {
    const d = this.documents.get(id);
    if (!d) throw new Error(`no document ${id}`);
    return d;
  }

  private holds(id: string, workerId: string): HeldDocument | undefined {
    const d = this.documents.get(id);
    return d && d.leaseOwner === workerId && d.record.status === 'processing' ? d : undefined;
  }

  private update(d: HeldDocument, fields: Partial<DocumentRecord>): void {
    d.record = { ...d.record, ...fields, updatedAt: new Date() };
  }

  private finish(d: HeldDocument, fields: Partial<DocumentRecord>): void {
    this.update(d, { ...fields, stage: 'done', finishedAt: new Date() });
    d.leaseOwner = null;
    d.leaseExpiresAt = 0;
    d.fetchHeaders = null;
  }

  async claimDocument(
    documentId: string,
    workerId: string,
    leaseSeconds: number,
    maxAttempts: number,
  ): Promise<ClaimResult> {
    const d = this.documents.get(documentId);
    if (!d || d.record.status === 'deleted') return { kind: 'gone' };
    if (TERMINAL_DOCUMENT_STATUSES.has(d.record.status)) return { kind: 'terminal' };
    if (d.leaseExpiresAt > this.now && d.leaseOwner !== workerId) return { kind: 'leased_elsewhere' };
    const run = this.runs.get(d.record.runId)!;
    if (run.status === 'paused') {
      this.update(d, { status: 'queued', stage: 'queued' });
      d.leaseOwner = null;
      return { kind: 'run_paused' };
    }
    if (run.status === 'cancelled') {
      this.finish(d, { status: 'cancelled', errorCode: 'cancelled' });
      return { kind: 'run_cancelled' };
    }
    if (d.record.attempts >= maxAttempts) return { kind: 'attempts_exhausted', document: { ...d.record } };
    this.update(d, { status: 'processing', attempts: d.record.attempts + 1 });
    d.leaseOwner = workerId;
    d.leaseExpiresAt = this.now + leaseSeconds * 1000;
    return { kind: 'claimed', document: { ...d.record } };
  }

  async renewLease(documentId: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    const d = this.holds(documentId, workerId);
    if (d) d.leaseExpiresAt = this.now + leaseSeconds * 1000;
    return d !== undefined;
  }

  async setStage(documentId: string, workerId: string, stage: DocumentStage): Promise<boolean> {
    const d = this.holds(documentId, workerId);
    if (d) this.update(d, { stage });
    return d !== undefined;
  }

  async fetchHeadersOf(documentId: string): Promise<string | null> {
    return this.documents.get(documentId)?.fetchHeaders ?? null;
  }

  async recordFetched(
    documentId: string,
    workerId: string,
    fetched: { sizeBytes: number; sha256: string; declaredMediaType: string | null; filename: string },
  ): Promise<DocumentRecord | undefined> {
    const d = this.holds(documentId, workerId);
    if (!d) return undefined;
    this.update(d, fetched);
    d.fetchHeaders = null;
    return { ...d.record };
  }

  async runStatusOf(documentId: string): Promise<RunStatus | undefined> {
    const d = this.documents.get(documentId);
    return d && this.runs.get(d.record.runId)?.status;
  }

  async finishDocument(documentId: string, workerId: string, result: FinishDocument): Promise<boolean> {
    const d = this.holds(documentId, workerId);
    if (!d) return false;
    this.finish(d, {
      status: result.status,
      errorCode: result.errorCode ?? null,
      errorMessage: result.errorMessage ?? null,
      ...(result.mediaType ? { mediaType: result.mediaType } : {}),
      ...(result.pageCount != null ? { pageCount: result.pageCount } : {}),
      ...(result.chunkCount != null ? { chunkCount: result.chunkCount } : {}),
    });
    await this.settleRun(d.record.runId);
    return true;
  }

  async failUnleased(documentId: string, code: DocumentFailureCode, message: string): Promise<void> {
    const d = this.documents.get(documentId);
    if (!d || (d.record.status !== 'queued' && d.record.status !== 'processing')) return;
    this.finish(d, { status: 'failed', errorCode: code, errorMessage: message });
    await this.settleRun(d.record.runId);
  }

  async releaseLease(documentId: string, workerId: string): Promise<void> {
    const d = this.documents.get(documentId);
    if (d?.leaseOwner === workerId) d.leaseExpiresAt = this.now;
  }

  async findOrphanedDocuments(limit: number, afterId: string | null): Promise<string[]> {
    return [...this.documents.values()]
      .filter(
        (d) =>
          (d.record.status === 'queued' || d.record.status === 'processing') &&
          this.runs.get(d.record.runId)?.status === 'processing' &&
          d.leaseExpiresAt <= this.now &&
          (afterId === null || d.record.id > afterId),
      )
      .map((d) => d.record.id)
      .sort()
      .slice(0, limit);
  }

  async findUnsettledRuns(limit: number): Promise<string[]> {
    return [...this.runs.entries()]
      .filter(([id, run]) => run.status === 'processing' && this.pending(id) === 0)
      .map(([id]) => id)
      .slice(0, limit);
  }

  private pending(runId: string): number {
    return [...this.documents.values()].filter(
      (d) => d.record.runId === runId && (d.record.status === 'queued' || d.record.status === 'processing'),
    ).length;
  }

  async settleRun(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (run?.status !== 'processing' || this.pending(runId) > 0) return;
    const docs = [...this.documents.values()].filter((d) => d.record.runId === runId).map((d) => d.record);
    const ok = docs.filter((d) => d.status === 'ready' || d.status === 'needs_ocr').length;
    const failed = docs.filter((d) => d.status === 'failed').length;
    run.status = failed > 0 && ok === 0 ? 'failed' : 'completed';
  }

  async releaseAllLeases(): Promise<void> {
    for (const d of this.documents.values())
      if (d.record.status === 'processing') d.leaseExpiresAt = this.now;
  }

  async isDeleted(documentId: string): Promise<boolean> {
    const d = this.documents.get(documentId);
    return !d || d.record.status === 'deleted';
  }
}

/**
 * A workspace's chunks in memory: one row set per document, replaced whole. Search ranks rows by how
 * many of the query's words they contain (enough for tests that care which rows are there, not how
 * well they rank). `failWith` makes the next writes fail, as an unreachable index would.
 */
export class MemorySearchIndex implements SearchIndex {
  readonly rows = new Map<string, IndexRow[]>();
  /** Writes fail with this error while it is set. */
  failWith: Error | undefined;

  private workspace(workspaceId: string): IndexRow[] {
    return this.rows.get(workspaceId) ?? [];
  }

  private write(): void {
    if (this.failWith) throw this.failWith;
  }

  async replaceDocument(workspaceId: string, documentId: string, rows: IndexRow[]): Promise<void> {
    this.write();
    this.rows.set(workspaceId, [
      ...this.workspace(workspaceId).filter((r) => r.documentId !== documentId),
      ...rows,
    ]);
  }

  async countDocumentRows(workspaceId: string, documentId: string): Promise<number> {
    return this.workspace(workspaceId).filter((r) => r.documentId === documentId).length;
  }

  async deleteDocument(workspaceId: string, documentId: string): Promise<void> {
    this.write();
    this.rows.set(
      workspaceId,
      this.workspace(workspaceId).filter((r) => r.documentId !== documentId),
    );
  }

  async search(workspaceId: string, query: IndexQuery): Promise<IndexHit[]> {
    const words = query.text.toLowerCase().split(/\W+/).filter(Boolean);
    return this.workspace(workspaceId)
      .filter((r) => !query.documentIds || query.documentIds.includes(r.documentId))
      .map((row) => ({ row, score: words.filter((w) => row.text.toLowerCase().includes(w)).length }))
      .filter((h) => h.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, query.limit);
  }

  async replaceDocumentVectors(_w: string, _s: VectorSpace, _d: string, _rows: VectorRow[]): Promise<void> {
    this.write();
  }

  async vectorSearch(): Promise<IndexHit[]> {
    return [];
  }

  async vectorIds(): Promise<Set<string>> {
    return new Set();
  }

  async listRows(workspaceId: string, afterId: string | null, limit: number): Promise<IndexRow[]> {
    return this.workspace(workspaceId)
      .filter((r) => afterId === null || r.id > afterId)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  }

  async upsertVectors(): Promise<void> {
    this.write();
  }

  async dropVectorSpaces(): Promise<void> {}

  async optimize(): Promise<void> {}

  async check(): Promise<void> {}

  async close(): Promise<void> {}
}
