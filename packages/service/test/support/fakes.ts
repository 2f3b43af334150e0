// Over 400 lines: one in-memory work store, kept to the contract suite's rules, whose every method
// reads and writes the same documents and runs; split, they would pass that state around.
/**
 * In-memory stand-ins for the work store (here), the search index (fake-index.ts) and the workspace
 * store (fake-workspaces.ts), for unit tests of the pipeline and of uploads. They keep the rules the
 * PostgreSQL repositories and LanceDB keep (a lease held by one worker, terminal states, a run settled
 * when its last document finishes, one row set per document) so that a test of a branch meets the
 * same answers it would in production; test/support/work-store-contract.ts holds the work store's
 * fake and repository to the same suite.
 */
import type { GrantDeps } from '../../src/access/grants.js';
import { batchPlace, type Claimable, formBatch } from '../../src/domain/batches.js';
import type {
  BatchClaim,
  ClaimOptions,
  FetchedBytes,
  FinishDocument,
  RecordedFetch,
  StartOutcome,
  WorkStore,
} from '../../src/domain/stores.js';
import {
  type DocumentRecord,
  type DocumentStage,
  type Principal,
  type RunStatus,
  type Scope,
  TERMINAL_DOCUMENT_STATUSES,
} from '../../src/domain/types.js';
import type { DocumentFailureCode } from '../../src/errors.js';

interface HeldDocument {
  record: DocumentRecord;
  leaseOwner: string | null;
  leaseExpiresAt: number;
  fetchHeaders: string | null;
  /** On the store's clock: when it was last queued, and last handed back by the reconciler. */
  waitingSince: number;
  requeuedAt: number | undefined;
}

export function documentRecord(
  fields: Partial<DocumentRecord> & { id: string; runId: string },
): DocumentRecord {
  const now = new Date();
  return {
    accountId: 'acc_test',
    workspaceId: 'ws_test',
    language: null,
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
    sourceId: null,
    sourceItem: null,
    version: 1,
    access: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
    ...fields,
  };
}

/** An account without people or groups: what grant resolution needs when access lists are not under test. */
export const NO_PEOPLE: GrantDeps = {
  users: { getUser: async () => undefined, findUserByEmail: async () => undefined },
  groups: { resolveGroups: async () => [] },
};

/** A caller with an account key of the given scopes: it sees the whole account, as keys did before roles. */
export function keyPrincipal(accountId: string, scopes: Scope[], keyId = 'key_test'): Principal {
  return { accountId, scopes: new Set(scopes), keyId, userId: undefined, role: undefined, actor: 'dsk_test' };
}

/** The worker's view of documents and runs, with leases that expire on the given clock. */
export class MemoryWorkStore implements WorkStore {
  readonly documents = new Map<string, HeldDocument>();
  readonly runs = new Map<string, { status: RunStatus; began: number }>();
  readonly deletedWorkspaces = new Set<string>();
  /** What workers handed to deleted workspaces' deletions (reopenDeletion), by workspace. */
  readonly reopened = new Map<string, Set<string>>();
  /** Milliseconds; tests move it forward to let leases expire. */
  now = 1_000_000;

  addRun(runId: string, status: RunStatus = 'processing'): void {
    this.runs.set(runId, { status, began: ++this.events });
  }

  addDocument(record: DocumentRecord, fetchHeaders: string | null = null): void {
    if (!this.runs.has(record.runId)) this.addRun(record.runId);
    this.documents.set(record.id, {
      record: { ...record },
      leaseOwner: null,
      leaseExpiresAt: 0,
      fetchHeaders,
      waitingSince: this.now,
      requeuedAt: undefined,
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
    if (fields.status === 'queued') d.waitingSince = this.now;
  }

  private finish(d: HeldDocument, fields: Partial<DocumentRecord>): void {
    this.update(d, { ...fields, stage: 'done', finishedAt: new Date() });
    d.leaseOwner = null;
    d.leaseExpiresAt = 0;
    d.fetchHeaders = null;
  }

  /** When a batch of each workspace was last claimed, on the count of runs begun and claims made. */
  private readonly turns = new Map<string, { accountId: string; served: number }>();
  private events = 0;

  /** Whether a batch could take the document now (the claim decides for certain). */
  private waiting(d: HeldDocument, maxAttempts: number, asked: boolean): boolean {
    const free =
      d.record.status === 'queued' ||
      (asked && d.record.status === 'processing' && d.leaseExpiresAt <= this.now);
    return free && this.runs.get(d.record.runId)?.status === 'processing' && d.record.attempts < maxAttempts;
  }

  /** The workspace whose turn it is, as the repository's nextTurnIn chooses it. */
  private nextTurn(documentIds: string[], maxAttempts: number): string | undefined {
    // By workspace: its account, and the place of its first job in hand (none: only waiting).
    const candidates = new Map<string, { accountId: string; position: number }>();
    documentIds.forEach((id, position) => {
      const d = this.documents.get(id);
      if (d && !candidates.has(d.record.workspaceId) && this.waiting(d, maxAttempts, true))
        candidates.set(d.record.workspaceId, { accountId: d.record.accountId, position });
    });
    for (const d of this.documents.values())
      if (!candidates.has(d.record.workspaceId) && this.waiting(d, maxAttempts, false))
        candidates.set(d.record.workspaceId, {
          accountId: d.record.accountId,
          position: Number.POSITIVE_INFINITY,
        });
    const accountServed = (accountId: string) =>
      Math.max(
        Number.NEGATIVE_INFINITY,
        ...[...this.turns.values()].filter((t) => t.accountId === accountId).map((t) => t.served),
      );
    // A workspace never served counts from when its oldest running run began.
    const began = (workspaceId: string) =>
      Math.min(
        ...[...this.documents.values()]
          .filter((d) => d.record.workspaceId === workspaceId)
          .map((d) => this.runs.get(d.record.runId)!)
          .filter((r) => r.status === 'processing')
          .map((r) => r.began),
      );
    const served = (workspaceId: string) => {
      const at = this.turns.get(workspaceId)?.served ?? Number.NEGATIVE_INFINITY;
      return at === Number.NEGATIVE_INFINITY ? began(workspaceId) : at;
    };
    const order = [...candidates].sort(
      ([wa, a], [wb, b]) =>
        accountServed(a.accountId) - accountServed(b.accountId) ||
        served(wa) - served(wb) ||
        a.position - b.position ||
        (wa < wb ? -1 : 1),
    );
    const chosen = order[0]?.[0];
    for (const [workspaceId, c] of candidates)
      if ((c.position < Number.POSITIVE_INFINITY || workspaceId === chosen) && !this.turns.has(workspaceId))
        this.turns.set(workspaceId, { accountId: c.accountId, served: Number.NEGATIVE_INFINITY });
    return chosen;
  }

  async claimDocuments(documentIds: string[], workerId: string, options: ClaimOptions): Promise<BatchClaim> {
    const turn = this.nextTurn(documentIds, options.maxAttempts);
    const out: BatchClaim = { claimed: [], deferred: [], exhausted: [], skipped: [] };
    const claimable: (Claimable & { d: HeldDocument })[] = [];
    const claimableOf = (d: HeldDocument) => ({
      id: d.record.id,
      workspaceId: d.record.workspaceId,
      place: batchPlace(d.record, options),
      d,
    });
    for (const id of new Set(documentIds)) {
      const d = this.documents.get(id);
      if (!d || d.record.status === 'deleted') {
        out.skipped.push({ documentId: id, reason: 'gone' });
        continue;
      }
      const run = this.runs.get(d.record.runId)!;
      if (TERMINAL_DOCUMENT_STATUSES.has(d.record.status)) {
        out.skipped.push({ documentId: id, reason: 'terminal' });
      } else if (d.leaseExpiresAt > this.now) {
        out.skipped.push({ documentId: id, reason: 'leased_elsewhere' });
      } else if (run.status === 'paused') {
        this.update(d, { status: 'queued', stage: 'queued' });
        d.leaseOwner = null;
        d.leaseExpiresAt = 0;
        out.skipped.push({ documentId: id, reason: 'run_paused' });
      } else if (run.status === 'cancelled') {
        this.finish(d, { status: 'cancelled', errorCode: 'cancelled' });
        out.skipped.push({ documentId: id, reason: 'run_cancelled' });
      } else if (d.record.attempts >= options.maxAttempts) {
        out.exhausted.push({ ...d.record });
      } else {
        claimable.push(claimableOf(d));
      }
    }
    let take: (Claimable & { d: HeldDocument })[] = [];
    const asked = turn !== undefined && claimable.some((c) => c.workspaceId === turn);
    if (turn !== undefined && !asked) {
      const waiting = [...this.documents.values()]
        .filter((d) => d.record.workspaceId === turn && this.waiting(d, options.maxAttempts, false))
        .sort((a, b) => (a.record.runId + a.record.id < b.record.runId + b.record.id ? -1 : 1))
        .slice(0, options.maxDocuments ?? documentIds.length);
      take = formBatch(waiting.map(claimableOf), turn, options.maxBytes).take;
      if (take.length > 0) out.deferred = claimable.map((c) => c.id);
    }
    if (take.length === 0 && claimable.length > 0) {
      const batch = formBatch(claimable, asked ? turn : claimable[0]!.workspaceId, options.maxBytes);
      take = batch.take;
      out.deferred = batch.left.map((c) => c.id);
    }
    if (take.length > 0) {
      const turnOf = this.turns.get(take[0]!.workspaceId);
      if (turnOf) turnOf.served = ++this.events;
    }
    for (const { d } of take) {
      this.update(d, { status: 'processing', stage: 'queued' });
      d.leaseOwner = workerId;
      d.leaseExpiresAt = this.now + options.leaseSeconds * 1000;
      out.claimed.push({ ...d.record });
    }
    return out;
  }

  async startDocuments(
    documentIds: string[],
    workerId: string,
    stage: DocumentStage,
  ): Promise<Map<string, StartOutcome>> {
    const out = new Map<string, StartOutcome>();
    for (const id of documentIds) {
      const d = this.holds(id, workerId);
      if (!d) {
        out.set(id, { held: false });
        continue;
      }
      const runStatus = this.runs.get(d.record.runId)!.status;
      if (runStatus !== 'processing') {
        out.set(id, { held: true, runStatus, attempts: 0 });
        continue;
      }
      this.update(d, { stage, attempts: d.record.attempts + 1 });
      out.set(id, { held: true, runStatus, attempts: d.record.attempts });
    }
    return out;
  }

  async setStages(
    documentIds: string[],
    workerId: string,
    stage: DocumentStage,
  ): Promise<Map<string, RunStatus>> {
    const out = new Map<string, RunStatus>();
    for (const id of documentIds) {
      const d = this.holds(id, workerId);
      if (!d) continue;
      this.update(d, { stage });
      out.set(id, this.runs.get(d.record.runId)!.status);
    }
    return out;
  }

  async renewLeases(documentIds: string[], workerId: string, leaseSeconds: number): Promise<Set<string>> {
    const kept = new Set<string>();
    for (const id of documentIds) {
      const d = this.holds(id, workerId);
      if (!d) continue;
      d.leaseExpiresAt = this.now + leaseSeconds * 1000;
      kept.add(id);
    }
    return kept;
  }

  async releaseLeases(documentIds: string[], workerId: string): Promise<void> {
    for (const id of documentIds) {
      const d = this.documents.get(id);
      if (d?.leaseOwner === workerId) d.leaseExpiresAt = this.now;
    }
  }

  async unclaimDocuments(
    documentIds: string[],
    workerId: string,
    takeBackAttempt: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    for (const id of documentIds) {
      const d = this.holds(id, workerId);
      if (!d) continue;
      const attempts = takeBackAttempt.has(id) ? Math.max(0, d.record.attempts - 1) : d.record.attempts;
      this.update(d, { status: 'queued', stage: 'queued', attempts });
      d.leaseOwner = null;
      d.leaseExpiresAt = 0;
    }
  }

  async finishDocuments(
    workerId: string,
    results: { documentId: string; result: FinishDocument }[],
  ): Promise<Set<string>> {
    const finished = new Set<string>();
    const runs = new Set<string>();
    for (const { documentId, result } of results) {
      const d = this.documents.get(documentId);
      if (d) runs.add(d.record.runId);
      if (!d || !this.holds(documentId, workerId)) continue;
      this.finish(d, {
        status: result.status,
        errorCode: result.errorCode ?? null,
        errorMessage: result.errorMessage ?? null,
        ...(result.mediaType ? { mediaType: result.mediaType } : {}),
        ...(result.pageCount != null ? { pageCount: result.pageCount } : {}),
        ...(result.chunkCount != null ? { chunkCount: result.chunkCount } : {}),
        ...(result.language ? { language: result.language } : {}),
      });
      finished.add(documentId);
    }
    for (const runId of runs) await this.settleRun(runId);
    return finished;
  }

  async fetchHeadersOf(documentId: string): Promise<string | null> {
    return this.documents.get(documentId)?.fetchHeaders ?? null;
  }

  async recordFetched(workerId: string, documents: FetchedBytes[]): Promise<Map<string, RecordedFetch>> {
    const out = new Map<string, RecordedFetch>();
    for (const { documentId, ...fetched } of documents) {
      const d = this.holds(documentId, workerId);
      if (!d) continue;
      this.update(d, { ...fetched, stage: 'parsing' });
      d.fetchHeaders = null;
      out.set(documentId, { document: { ...d.record }, runStatus: this.runs.get(d.record.runId)!.status });
    }
    return out;
  }

  /** Without syncs here, the run a document came from is not kept: it stays in its current one. */
  async keepIndexedVersion(documentId: string, workerId: string): Promise<boolean> {
    const d = this.holds(documentId, workerId);
    const { indexedSha256, sha256, version, runId } = d?.record ?? {};
    if (!d || !indexedSha256 || indexedSha256 !== sha256 || version! < 2) return false;
    this.finish(d, { status: 'ready', version: version! - 1, indexedSha256: null });
    await this.settleRun(runId!);
    return true;
  }

  async failUnleased(documentId: string, code: DocumentFailureCode, message: string): Promise<void> {
    const d = this.documents.get(documentId);
    if (!d || (d.record.status !== 'queued' && d.record.status !== 'processing')) return;
    this.finish(d, { status: 'failed', errorCode: code, errorMessage: message });
    await this.settleRun(d.record.runId);
  }

  async countWaitingDocuments(olderThanSeconds: number): Promise<number> {
    const bound = this.now - olderThanSeconds * 1000;
    return [...this.documents.values()].filter(
      (d) =>
        d.record.status === 'queued' &&
        this.runs.get(d.record.runId)?.status === 'processing' &&
        d.waitingSince < bound,
    ).length;
  }

  async requeueLostDocuments(limit: number, waitingSeconds: number): Promise<string[]> {
    const bound = this.now - waitingSeconds * 1000;
    const lost = [...this.documents.values()]
      .filter((d) => {
        if (this.runs.get(d.record.runId)?.status !== 'processing') return false;
        if (d.record.status === 'queued') return (d.requeuedAt ?? d.waitingSince) < bound;
        return (
          d.record.status === 'processing' &&
          d.leaseExpiresAt <= this.now &&
          (d.requeuedAt === undefined || d.requeuedAt < d.leaseExpiresAt || d.requeuedAt < bound)
        );
      })
      .sort((a, b) => (a.record.id < b.record.id ? -1 : 1))
      .slice(0, limit);
    for (const d of lost) d.requeuedAt = this.now;
    return lost.map((d) => d.record.id);
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

  async settleRun(runId: string, indexed = false): Promise<void> {
    const run = this.runs.get(runId);
    if (run?.status !== 'processing' || this.pending(runId) > 0) return;
    const docs = [...this.documents.values()].filter((d) => d.record.runId === runId).map((d) => d.record);
    const ok = docs.filter((d) => d.status === 'ready' || d.status === 'needs_ocr').length;
    const failed = docs.filter((d) => d.status === 'failed').length;
    // As the repository: a run with searchable documents completes once its index is folded.
    if (docs.some((d) => d.status === 'ready') && !indexed) {
      this.awaitingIndex.set(runId, docs[0]!.workspaceId);
      return;
    }
    this.awaitingIndex.delete(runId);
    run.status = failed > 0 && ok === 0 ? 'failed' : 'completed';
  }

  /** Runs waiting for their index, with their workspace. */
  private readonly awaitingIndex = new Map<string, string>();

  async runsAwaitingIndex(workspaceId: string): Promise<string[]> {
    return [...this.awaitingIndex.entries()]
      .filter(([runId, ws]) => ws === workspaceId && this.runs.get(runId)?.status === 'processing')
      .map(([runId]) => runId)
      .sort();
  }

  async completeIndexedRuns(runIds: string[]): Promise<void> {
    for (const runId of runIds) await this.settleRun(runId, true);
  }

  async workspacesAwaitingIndex(): Promise<string[]> {
    return [...new Set(this.awaitingIndex.values())];
  }

  async releaseAllLeases(): Promise<void> {
    for (const d of this.documents.values())
      if (d.record.status === 'processing') d.leaseExpiresAt = this.now;
  }

  /** The workspace is deleted as the repository does it: its runs and documents go with it. */
  deleteWorkspace(workspaceId: string): void {
    this.deletedWorkspaces.add(workspaceId);
    for (const [id, d] of this.documents) {
      if (d.record.workspaceId !== workspaceId) continue;
      this.documents.delete(id);
      this.runs.delete(d.record.runId);
    }
  }

  async reopenDeletion(workspaceId: string, objectKeys: string[]): Promise<void> {
    const keys = this.reopened.get(workspaceId) ?? new Set<string>();
    for (const k of objectKeys) keys.add(k);
    this.reopened.set(workspaceId, keys);
  }

  async deletedAmong(
    workspaceId: string,
    documentIds: string[],
  ): Promise<{ workspace: boolean; documents: Set<string> }> {
    return {
      workspace: this.deletedWorkspaces.has(workspaceId),
      documents: new Set(
        documentIds.filter((id) => {
          const d = this.documents.get(id);
          return !d || d.record.status === 'deleted';
        }),
      ),
    };
  }
}
