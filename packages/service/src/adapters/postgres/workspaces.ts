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
import type { Audience, DocumentCounts, Workspace, WorkspaceAccess } from '../../domain/types.js';
import { LruMap } from '../../lru.js';
import { inTransaction, type Pool, type Queryable } from './db.js';
import { DELETION_CLAIM_SECONDS } from './deletions.js';
import { accountUseOf, countUploads, quotaOverridesOf } from './quotas.js';
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
import { visibilityFor } from './visibility.js';

class LostIdempotencyRace extends Error {}

/** A workspace's access as its four columns: all null for the whole account. */
function accessColumns(access: WorkspaceAccess): (string[] | null)[] {
  if (access === null) return [null, null, null, null];
  return [[...access.read.users], [...access.read.groups], [...access.edit.users], [...access.edit.groups]];
}

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

  async searchContext(audience: Audience, workspaceId: string): Promise<SearchContext | undefined> {
    if (!audience.member) {
      const known = this.known.get(workspaceId);
      const workspace =
        known && known.until > Date.now() ? known.workspace : await this.getWorkspace(audience, workspaceId);
      if (!workspace || workspace.accountId !== audience.accountId) return undefined;
      return { language: workspace.language, languages: workspace.languages, visibility: undefined };
    }
    // A member's view is read afresh: an access change applies to the next request, in every process.
    // One query (one pooled connection, which concurrent searches share) reads the workspace and what
    // the member may see of its documents; the database sums the documents up, so only the shorter
    // list of ids comes back, not a row per document.
    const vis = visibilityFor(audience, 3);
    const r = await this.pool.query<
      WorkspaceRow & {
        hidden: number;
        only: boolean;
        ids: string[] | null;
        visible_languages: string[] | null;
      }
    >(
      `WITH w AS (SELECT * FROM workspaces w WHERE w.id = $1 AND w.account_id = $2 AND ${vis.workspace('w')}),
            d AS (SELECT d.id, d.language, d.status, coalesce(${vis.document('d')}, false) AS visible
                    FROM documents d WHERE d.workspace_id = $1 AND EXISTS (SELECT 1 FROM w)),
            n AS (SELECT count(*) FILTER (WHERE visible) AS seen, count(*) FILTER (WHERE NOT visible) AS hidden FROM d)
       SELECT w.*, n.hidden::int AS hidden, n.seen < n.hidden AS only,
              ARRAY(SELECT id FROM d WHERE visible = (n.seen < n.hidden)) AS ids,
              ARRAY(SELECT DISTINCT language FROM d
                     WHERE visible AND status = 'ready' AND language IS NOT NULL ORDER BY language) AS visible_languages
         FROM w, n`,
      [workspaceId, audience.accountId, ...vis.params],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    const workspace = toWorkspace(row);
    if (row.hidden === 0)
      return { language: workspace.language, languages: workspace.languages, visibility: undefined };
    // What the audience may see decides how a question is read: the languages of visible documents.
    const ids = row.ids ?? [];
    return {
      language: workspace.language,
      languages: row.visible_languages ?? [],
      visibility: row.only ? { only: ids } : { except: ids },
    };
  }

  async getWorkspace(audience: Audience, workspaceId: string): Promise<Workspace | undefined> {
    const vis = visibilityFor(audience, 3);
    const r = await this.pool.query<WorkspaceRow>(
      `SELECT * FROM workspaces w WHERE w.id = $1 AND w.account_id = $2 AND ${vis.workspace('w')}`,
      [workspaceId, audience.accountId, ...vis.params],
    );
    if (!r.rows[0]) return undefined;
    const workspace = toWorkspace(r.rows[0]);
    if (!audience.member) this.known.set(workspaceId, { workspace, until: Date.now() + KNOWN_FOR_MS });
    return workspace;
  }

  async listWorkspaces(audience: Audience): Promise<(Workspace & { counts: DocumentCounts })[]> {
    const vis = visibilityFor(audience, 2);
    const ws = await this.pool.query<WorkspaceRow>(
      `SELECT * FROM workspaces w WHERE w.account_id = $1 AND ${vis.workspace('w')} ORDER BY w.created_at DESC`,
      [audience.accountId, ...vis.params],
    );
    const counts = await this.pool.query<StatusCountRow & { workspace_id: string }>(
      `SELECT d.workspace_id, d.status, count(*) AS n FROM documents d
        WHERE d.account_id = $1 AND ${vis.document('d')} GROUP BY d.workspace_id, d.status`,
      [audience.accountId, ...vis.params],
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
      `INSERT INTO workspaces (id, account_id, name, description, metadata, language,
                               read_users, read_groups, edit_users, edit_groups)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
      [
        w.id,
        w.accountId,
        w.name,
        w.description,
        JSON.stringify(w.metadata),
        w.language ?? 'auto',
        ...accessColumns(w.access ?? null),
      ],
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
              read_users = CASE WHEN $10 THEN $11::text[] ELSE read_users END,
              read_groups = CASE WHEN $10 THEN $12::text[] ELSE read_groups END,
              edit_users = CASE WHEN $10 THEN $13::text[] ELSE edit_users END,
              edit_groups = CASE WHEN $10 THEN $14::text[] ELSE edit_groups END,
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
        changes.access !== undefined,
        ...accessColumns(changes.access ?? null),
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
        let workspace: Workspace | undefined;
        if (upload.workspaceId) {
          const r = await c.query<WorkspaceRow>(
            'SELECT * FROM workspaces WHERE id = $1 AND account_id = $2 FOR SHARE',
            [upload.workspaceId, upload.accountId],
          );
          if (!r.rows[0]) return { kind: 'workspace_not_found' };
          workspace = toWorkspace(r.rows[0]);
        }
        // After the workspace's lock (the order a deletion takes them in), before anything is written.
        if (upload.admit) {
          const use = await accountUseOf(c, upload.accountId, true);
          const refusal = upload.admit(use, await quotaOverridesOf(c, upload.accountId));
          if (refusal) return { kind: 'quota_exceeded', refusal };
        }
        if (!workspace) {
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
                                  size_bytes, sha256, storage_key, status, metadata, fetch_headers,
                                  access_users, access_groups)
           SELECT u.id, $2, $3, $4, u.filename, u.source_url, u.media_type, u.size, u.sha, u.key, 'queued', $5, u.headers,
                  $13::text[], $14::text[]
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
            upload.access ? [...upload.access.users] : null,
            upload.access ? [...upload.access.groups] : null,
          ],
        );
        await countUploads(c, upload.accountId, f.length);
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
