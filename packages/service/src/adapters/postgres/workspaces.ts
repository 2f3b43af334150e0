import type { NewUpload, UploadOutcome, WorkspaceStore } from '../../domain/stores.js';
import type { DocumentCounts, Workspace } from '../../domain/types.js';
import { LruMap } from '../../lru.js';
import { inTransaction, type Pool, type Queryable } from './db.js';
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
import { runViewOf } from './runs.js';

class LostIdempotencyRace extends Error {}

/** Workspaces and the uploads that create or extend them (with their idempotency keys). */
export class PgWorkspaceRepository implements WorkspaceStore {
  /**
   * Workspaces found so far, by id. A workspace is never updated, moved or deleted, so a found one
   * stays true and every search's ownership check need not ask the database again (issue 7: one of
   * three queries per search). A change that updates or deletes workspaces must drop entries here,
   * and in the other processes too.
   */
  private readonly known = new LruMap<string, Readonly<Workspace>>(10_000);

  constructor(private readonly pool: Pool) {}

  async workspaceExists(accountId: string, workspaceId: string): Promise<boolean> {
    return (await this.getWorkspace(accountId, workspaceId)) !== undefined;
  }

  async getWorkspace(accountId: string, workspaceId: string): Promise<Workspace | undefined> {
    const known = this.known.get(workspaceId);
    if (known) return known.accountId === accountId ? known : undefined;
    const r = await this.pool.query<WorkspaceRow>(
      'SELECT * FROM workspaces WHERE id = $1 AND account_id = $2',
      [workspaceId, accountId],
    );
    if (!r.rows[0]) return undefined;
    const found = Object.freeze(toWorkspace(r.rows[0]));
    this.known.set(workspaceId, found);
    return found;
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
            'INSERT INTO workspaces (id, account_id) VALUES ($1, $2) RETURNING *',
            [upload.newWorkspaceId, upload.accountId],
          );
          workspace = toWorkspace(r.rows[0]!);
        }
        const runRow = await c.query<RunRow>(
          `INSERT INTO runs (id, account_id, workspace_id, status) VALUES ($1, $2, $3, 'processing') RETURNING *`,
          [upload.runId, upload.accountId, workspace.id],
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
