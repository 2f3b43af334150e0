import { artifactKeys } from '../../domain/artifacts.js';
import type {
  DeletedWorkspace,
  NewUpload,
  NewWorkspace,
  SearchContext,
  UploadOutcome,
  WorkspaceChanges,
  WorkspaceStore,
} from '../../domain/stores.js';
import type { DocumentCounts, Workspace } from '../../domain/types.js';
import { LruMap } from '../../lru.js';
import { inTransaction, type Pool, type Queryable } from './db.js';
import { DELETION_CLAIM_SECONDS } from './deletions.js';
import {
  countsFrom,
  type DocumentRow,
  type RunRow,
  type StatusCountRow,
  toDocument,
  toRun,
  toWorkspace,
  type WorkspaceRow,
} from './rows.js';
import { cancelRunIn, runViewOf } from './runs.js';

class LostIdempotencyRace extends Error {}

/**
 * How long a found workspace is believed to exist without asking again. Every search checks that its
 * workspace exists and is the caller's (issue 7: one of three queries per search); a workspace
 * deleted through another process is refused here at most this long after (its passages are gone at
 * once anyway: search keeps only documents the database still has).
 */
const KNOWN_FOR_MS = 5_000;

/** Workspaces and the uploads that create or extend them (with their idempotency keys). */
export class PgWorkspaceRepository implements WorkspaceStore {
  /** Each workspace found lately, by id, until when it is believed (see KNOWN_FOR_MS). */
  private readonly known = new LruMap<string, { workspace: Workspace; until: number }>(10_000);

  constructor(private readonly pool: Pool) {}

  async workspaceExists(accountId: string, workspaceId: string): Promise<boolean> {
    return (await this.searchContext(accountId, workspaceId)) !== undefined;
  }

  async searchContext(accountId: string, workspaceId: string): Promise<SearchContext | undefined> {
    const known = this.known.get(workspaceId);
    const workspace =
      known && known.until > Date.now() ? known.workspace : await this.getWorkspace(accountId, workspaceId);
    if (!workspace || workspace.accountId !== accountId) return undefined;
    return { language: workspace.language, languages: workspace.languages };
  }

  async getWorkspace(accountId: string, workspaceId: string): Promise<Workspace | undefined> {
    const r = await this.pool.query<WorkspaceRow>(
      'SELECT * FROM workspaces WHERE id = $1 AND account_id = $2',
      [workspaceId, accountId],
    );
    if (!r.rows[0]) return undefined;
    const workspace = toWorkspace(r.rows[0]);
    this.known.set(workspaceId, { workspace, until: Date.now() + KNOWN_FOR_MS });
    return workspace;
  }

  async listWorkspaces(accountId: string): Promise<(Workspace & { counts: DocumentCounts })[]> {
    const ws = await this.pool.query<WorkspaceRow>(
      'SELECT * FROM workspaces WHERE account_id = $1 ORDER BY created_at DESC',
      [accountId],
    );
    const counts = await this.pool.query<StatusCountRow & { workspace_id: string }>(
      `SELECT workspace_id, status, count(*) AS n FROM documents WHERE account_id = $1 GROUP BY workspace_id, status`,
      [accountId],
    );
    const byWs = new Map<string, StatusCountRow[]>();
    for (const row of counts.rows) {
      const list = byWs.get(row.workspace_id) ?? [];
      list.push(row);
      byWs.set(row.workspace_id, list);
    }
    return ws.rows.map((w) => ({ ...toWorkspace(w), counts: countsFrom(byWs.get(w.id) ?? []) }));
  }

  async createWorkspace(w: NewWorkspace): Promise<Workspace> {
    const r = await this.pool.query<WorkspaceRow>(
      `INSERT INTO workspaces (id, account_id, name, description, metadata, language)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [w.id, w.accountId, w.name, w.description, JSON.stringify(w.metadata), w.language ?? 'auto'],
    );
    return toWorkspace(r.rows[0]!);
  }

  async updateWorkspace(
    accountId: string,
    workspaceId: string,
    changes: WorkspaceChanges,
  ): Promise<Workspace | undefined> {
    const r = await this.pool.query<WorkspaceRow>(
      `UPDATE workspaces
          SET name = CASE WHEN $3 THEN $4 ELSE name END,
              description = CASE WHEN $5 THEN $6 ELSE description END,
              metadata = CASE WHEN $7 THEN $8::jsonb ELSE metadata END,
              language = coalesce($9, language),
              updated_at = now()
        WHERE id = $1 AND account_id = $2
        RETURNING *`,
      [
        workspaceId,
        accountId,
        changes.name !== undefined,
        changes.name ?? null,
        changes.description !== undefined,
        changes.description ?? null,
        changes.metadata !== undefined,
        JSON.stringify(changes.metadata ?? {}),
        changes.language ?? null,
      ],
    );
    if (!r.rows[0]) return undefined;
    this.known.delete(workspaceId);
    return toWorkspace(r.rows[0]);
  }

  async deleteWorkspace(accountId: string, workspaceId: string): Promise<DeletedWorkspace | undefined> {
    const deleted = await inTransaction(this.pool, async (c): Promise<DeletedWorkspace | undefined> => {
      // Lock order as everywhere: workspace (uploads take it FOR SHARE), then its runs (a worker
      // finishing a document locks the run first), then the documents.
      const ws = await c.query<WorkspaceRow>(
        'SELECT * FROM workspaces WHERE id = $1 AND account_id = $2 FOR UPDATE',
        [workspaceId, accountId],
      );
      if (!ws.rows[0]) return undefined;
      // Its runs in progress are cancelled first, as a cancel request would (with their run.cancelled
      // events, which outlive the workspace); then they go with it, and a worker holding one of their
      // documents loses it at its next lease renewal (see the pipeline's clean-up of what it wrote since).
      const runs = await c.query<Pick<RunRow, 'id' | 'status'>>(
        'SELECT id, status FROM runs WHERE workspace_id = $1 ORDER BY id FOR UPDATE',
        [workspaceId],
      );
      const inProgress = runs.rows.filter((r) => r.status === 'processing' || r.status === 'paused');
      for (const run of inProgress) await cancelRunIn(c, run.id);
      const docs = await c.query<Pick<DocumentRow, 'id' | 'storage_key' | 'status'>>(
        'SELECT id, storage_key, status FROM documents WHERE workspace_id = $1 FOR UPDATE',
        [workspaceId],
      );
      await c.query(
        `INSERT INTO workspace_deletions (workspace_id, retry_after)
         VALUES ($1, now() + make_interval(secs => $2))`,
        [workspaceId, DELETION_CLAIM_SECONDS],
      );
      const keys = docs.rows.flatMap((d) => [...new Set([d.storage_key, ...artifactKeys.all(d.id)])]);
      await c.query(
        `INSERT INTO object_deletions (workspace_id, key) SELECT $1, k FROM unnest($2::text[]) AS k
         ON CONFLICT DO NOTHING`,
        [workspaceId, keys],
      );
      await c.query('DELETE FROM workspaces WHERE id = $1', [workspaceId]);
      return {
        workspace: toWorkspace(ws.rows[0]),
        documents: docs.rows.filter((d) => d.status !== 'deleted').length,
        cancelledRuns: inProgress.length,
      };
    });
    this.known.delete(workspaceId);
    return deleted;
  }

  async createUpload(upload: NewUpload): Promise<UploadOutcome> {
    // Two attempts: a concurrent request with the same idempotency key can win the race to insert it,
    // in which case we roll back and answer from the winner's record.
    for (let attempt = 0; attempt < 2; attempt++) {
      const outcome = await inTransaction(this.pool, async (c): Promise<UploadOutcome> => {
        if (upload.idempotency) {
          const prior = await this.replayOf(c, upload.accountId, upload.idempotency);
          if (prior) return prior;
        }
        let workspace: Workspace;
        if (upload.workspaceId) {
          const r = await c.query<WorkspaceRow>(
            'SELECT * FROM workspaces WHERE id = $1 AND account_id = $2 FOR SHARE',
            [upload.workspaceId, upload.accountId],
          );
          if (!r.rows[0]) return { kind: 'workspace_not_found' };
          workspace = toWorkspace(r.rows[0]);
        } else {
          const r = await c.query<WorkspaceRow>(
            'INSERT INTO workspaces (id, account_id, name) VALUES ($1, $2, $3) RETURNING *',
            [upload.newWorkspaceId, upload.accountId, upload.newWorkspaceName ?? null],
          );
          workspace = toWorkspace(r.rows[0]!);
        }
        const runRow = await c.query<RunRow>(
          `INSERT INTO runs (id, account_id, workspace_id, status, kind) VALUES ($1, $2, $3, 'processing', $4)
           RETURNING *`,
          [upload.runId, upload.accountId, workspace.id, upload.kind],
        );
        const f = upload.files;
        const docs = await c.query<DocumentRow>(
          `INSERT INTO documents (id, account_id, workspace_id, run_id, filename, source_url, declared_media_type,
                                  size_bytes, sha256, storage_key, status, metadata, fetch_headers)
           SELECT u.id, $2, $3, $4, u.filename, u.source_url, u.media_type, u.size, u.sha, u.key, 'queued', $5, u.headers
           FROM unnest($1::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[], $11::text[], $12::text[])
                AS u(id, filename, source_url, media_type, size, sha, key, headers)
           RETURNING *`,
          [
            f.map((x) => x.documentId),
            upload.accountId,
            workspace.id,
            upload.runId,
            JSON.stringify(upload.metadata),
            f.map((x) => x.filename),
            f.map((x) => x.sourceUrl ?? null),
            f.map((x) => x.declaredMediaType),
            f.map((x) => x.sizeBytes),
            f.map((x) => x.sha256),
            f.map((x) => x.storageKey),
            f.map((x) => x.fetchHeaders ?? null),
          ],
        );
        if (upload.idempotency) {
          const ins = await c.query(
            `INSERT INTO idempotency_keys (account_id, key, request_hash, run_id) VALUES ($1, $2, $3, $4)
             ON CONFLICT DO NOTHING`,
            [upload.accountId, upload.idempotency.key, upload.idempotency.requestHash, upload.runId],
          );
          if (ins.rowCount === 0) throw new LostIdempotencyRace();
        }
        const order = new Map(f.map((x, i) => [x.documentId, i]));
        const documents = docs.rows
          .map(toDocument)
          .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
        const run = await runViewOf(c, toRun(runRow.rows[0]!));
        return { kind: 'created', workspace, run, documents };
      }).catch((err: unknown) => {
        if (err instanceof LostIdempotencyRace) return undefined;
        throw err;
      });
      if (outcome) return outcome;
    }
    throw new Error('idempotency key contention did not resolve');
  }

  private async replayOf(
    c: Queryable,
    accountId: string,
    idem: { key: string; requestHash: string },
  ): Promise<UploadOutcome | undefined> {
    const r = await c.query<{ request_hash: string; run_id: string }>(
      'SELECT request_hash, run_id FROM idempotency_keys WHERE account_id = $1 AND key = $2',
      [accountId, idem.key],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    if (row.request_hash !== idem.requestHash) return { kind: 'idempotency_conflict' };
    const runs = await c.query<RunRow>('SELECT * FROM runs WHERE id = $1', [row.run_id]);
    const run = await runViewOf(c, toRun(runs.rows[0]!));
    const ws = await c.query<WorkspaceRow>('SELECT * FROM workspaces WHERE id = $1', [run.workspaceId]);
    const docs = await c.query<DocumentRow>(
      'SELECT * FROM documents WHERE run_id = $1 ORDER BY created_at, id',
      [run.id],
    );
    return {
      kind: 'replayed',
      workspace: toWorkspace(ws.rows[0]!),
      run,
      documents: docs.rows.map(toDocument),
    };
  }
}
