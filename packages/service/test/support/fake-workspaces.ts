/** An in-memory workspace store for unit tests of uploads (see fakes.ts for the rules the fakes keep). */
import { mayReadWorkspace } from '../../src/access/policy.js';
import type {
  DeletedWorkspace,
  NewUpload,
  NewWorkspace,
  SearchContext,
  UploadOutcome,
  WorkspaceChanges,
  WorkspaceStore,
} from '../../src/domain/stores.js';
import type {
  Audience,
  DocumentCounts,
  DocumentRecord,
  Run,
  RunView,
  Workspace,
} from '../../src/domain/types.js';
import { documentRecord } from './fakes.js';

const EMPTY_COUNTS: DocumentCounts = {
  total: 0,
  queued: 0,
  processing: 0,
  ready: 0,
  needs_ocr: 0,
  failed: 0,
  cancelled: 0,
  deleted: 0,
};

/** Workspaces and uploads in memory, with idempotency keys kept per account as the repository does. */
export class MemoryWorkspaceStore implements WorkspaceStore {
  readonly workspaces = new Map<string, Workspace>();
  readonly uploads = new Map<string, { workspace: Workspace; run: RunView; documents: DocumentRecord[] }>();
  readonly idempotency = new Map<string, { requestHash: string; runId: string }>();
  /** createUpload fails with this error while it is set, as a database that went away would. */
  failWith: Error | undefined;

  async searchContext(audience: Audience, workspaceId: string): Promise<SearchContext | undefined> {
    const ws = await this.getWorkspace(audience, workspaceId);
    return ws && { language: ws.language, languages: ws.languages, visibility: undefined };
  }

  async getWorkspace(audience: Audience, workspaceId: string): Promise<Workspace | undefined> {
    const ws = this.workspaces.get(workspaceId);
    return ws?.accountId === audience.accountId && mayReadWorkspace(audience, ws.access) ? ws : undefined;
  }

  async listWorkspaces(audience: Audience): Promise<(Workspace & { counts: DocumentCounts })[]> {
    return [...this.workspaces.values()]
      .filter((w) => w.accountId === audience.accountId && mayReadWorkspace(audience, w.access))
      .map((w) => ({ ...w, counts: EMPTY_COUNTS }));
  }

  async createWorkspace(w: NewWorkspace): Promise<Workspace> {
    const now = new Date();
    const workspace: Workspace = {
      ...w,
      language: w.language ?? 'auto',
      languages: [],
      access: w.access ?? null,
      createdAt: now,
      updatedAt: now,
    };
    this.workspaces.set(w.id, workspace);
    return workspace;
  }

  async updateWorkspace(
    accountId: string,
    workspaceId: string,
    changes: WorkspaceChanges,
  ): Promise<Workspace | undefined> {
    const ws = await this.getWorkspace({ accountId }, workspaceId);
    if (!ws) return undefined;
    const updated: Workspace = {
      ...ws,
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.metadata !== undefined ? { metadata: changes.metadata } : {}),
      ...(changes.language !== undefined ? { language: changes.language } : {}),
      ...(changes.access !== undefined ? { access: changes.access } : {}),
      updatedAt: new Date(),
    };
    this.workspaces.set(workspaceId, updated);
    return updated;
  }

  async deleteWorkspace(accountId: string, workspaceId: string): Promise<DeletedWorkspace | undefined> {
    const ws = await this.getWorkspace({ accountId }, workspaceId);
    if (!ws) return undefined;
    this.workspaces.delete(workspaceId);
    let documents = 0;
    let cancelledRuns = 0;
    for (const [runId, upload] of this.uploads) {
      if (upload.workspace.id !== workspaceId) continue;
      documents += upload.documents.filter((d) => d.status !== 'deleted').length;
      if (upload.run.status === 'processing' || upload.run.status === 'paused') cancelledRuns++;
      this.uploads.delete(runId);
    }
    return { workspace: ws, documents, cancelledRuns };
  }

  async createUpload(upload: NewUpload): Promise<UploadOutcome> {
    if (this.failWith) throw this.failWith;
    const idemKey = upload.idempotency && `${upload.accountId}/${upload.idempotency.key}`;
    const prior = idemKey ? this.idempotency.get(idemKey) : undefined;
    if (prior) {
      if (prior.requestHash !== upload.idempotency!.requestHash) return { kind: 'idempotency_conflict' };
      return { kind: 'replayed', ...this.uploads.get(prior.runId)! };
    }
    let workspace: Workspace | undefined;
    if (upload.workspaceId) {
      workspace = await this.getWorkspace({ accountId: upload.accountId }, upload.workspaceId);
      if (!workspace) return { kind: 'workspace_not_found' };
    } else {
      const now = new Date();
      workspace = {
        id: upload.newWorkspaceId,
        accountId: upload.accountId,
        name: upload.newWorkspaceName ?? null,
        description: null,
        metadata: {},
        language: 'auto',
        languages: [],
        access: null,
        createdAt: now,
        updatedAt: now,
      };
      this.workspaces.set(workspace.id, workspace);
    }
    const now = new Date();
    const run: Run = {
      id: upload.runId,
      accountId: upload.accountId,
      workspaceId: workspace.id,
      status: 'processing',
      kind: upload.kind,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
      sourceId: null,
      error: null,
    };
    const documents = upload.files.map((f) =>
      documentRecord({
        id: f.documentId,
        runId: run.id,
        accountId: upload.accountId,
        workspaceId: workspace.id,
        filename: f.filename,
        sourceUrl: f.sourceUrl ?? null,
        declaredMediaType: f.declaredMediaType,
        sizeBytes: f.sizeBytes,
        sha256: f.sha256,
        storageKey: f.storageKey,
        metadata: upload.metadata,
        access: upload.access,
      }),
    );
    const view: RunView = {
      ...run,
      counts: { ...EMPTY_COUNTS, total: documents.length, queued: documents.length },
      activity: { processed: 0, busySeconds: 0, recentlyProcessed: 0, windowSeconds: 0 },
      failures: [],
    };
    this.uploads.set(run.id, { workspace, run: view, documents });
    if (idemKey)
      this.idempotency.set(idemKey, { requestHash: upload.idempotency!.requestHash, runId: run.id });
    return { kind: 'created', workspace, run: view, documents };
  }
}
