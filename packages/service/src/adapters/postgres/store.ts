import type pg from 'pg';
import type {
  AccountOverview,
  BatchClaim,
  ClaimOptions,
  FinishDocument,
  NewApiKey,
  NewUpload,
  ServiceStore,
  StartOutcome,
  StoredSession,
  UploadOutcome,
} from '../../domain/ports.js';
import {
  type ApiKeyRecord,
  DOCUMENT_STATUSES,
  type DocumentCounts,
  type DocumentRecord,
  type DocumentStage,
  type Run,
  type RunStatus,
  type RunView,
  type Scope,
  TERMINAL_DOCUMENT_STATUSES,
  type User,
  type Workspace,
} from '../../domain/types.js';
import { LruMap } from '../../lru.js';
import { inTransaction } from './db.js';

type Row = Record<string, unknown>;

/** A run's pace is measured over the last minute of its work: recent enough to follow changes. */
const RUN_ACTIVITY_WINDOW_SECONDS = 60;

type Queryable = pg.Pool | pg.PoolClient;

const toDate = (v: unknown): Date => v as Date;
const toDateOrNull = (v: unknown): Date | null => (v === null ? null : (v as Date));

function toApiKey(r: Row): ApiKeyRecord {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    name: (r.name as string | null) ?? null,
    prefix: r.key_prefix as string,
    scopes: r.scopes as Scope[],
    createdAt: toDate(r.created_at),
    lastUsedAt: toDateOrNull(r.last_used_at),
    revokedAt: toDateOrNull(r.revoked_at),
  };
}

function toWorkspace(r: Row): Workspace {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    name: (r.name as string | null) ?? null,
    createdAt: toDate(r.created_at),
  };
}

function toRun(r: Row): Run {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    workspaceId: r.workspace_id as string,
    status: r.status as RunStatus,
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
    finishedAt: toDateOrNull(r.finished_at),
  };
}

function toDocument(r: Row): DocumentRecord {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    workspaceId: r.workspace_id as string,
    runId: r.run_id as string,
    filename: r.filename as string,
    sourceUrl: (r.source_url as string | null) ?? null,
    declaredMediaType: (r.declared_media_type as string | null) ?? null,
    mediaType: (r.media_type as string | null) ?? null,
    sizeBytes: r.size_bytes === null ? null : Number(r.size_bytes),
    sha256: (r.sha256 as string | null) ?? null,
    storageKey: r.storage_key as string,
    status: r.status as DocumentRecord['status'],
    stage: r.stage as DocumentStage,
    errorCode: (r.error_code as string | null) ?? null,
    errorMessage: (r.error_message as string | null) ?? null,
    pageCount: (r.page_count as number | null) ?? null,
    chunkCount: (r.chunk_count as number | null) ?? null,
    metadata: (r.metadata as Record<string, unknown>) ?? {},
    attempts: r.attempts as number,
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
    finishedAt: toDateOrNull(r.finished_at),
  };
}

function emptyCounts(): DocumentCounts {
  const counts = { total: 0 } as DocumentCounts;
  for (const s of DOCUMENT_STATUSES) counts[s] = 0;
  return counts;
}

function countsFrom(rows: Row[]): DocumentCounts {
  const counts = emptyCounts();
  for (const r of rows) {
    const status = r.status as keyof DocumentCounts;
    const n = Number(r.n);
    counts[status] = n;
    counts.total += n;
  }
  return counts;
}

/** All records of the service database. One class so that transactions can span aggregates. */
function toUser(r: Row): User {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    email: r.email as string,
    createdAt: toDate(r.created_at),
    lastLoginAt: toDateOrNull(r.last_login_at),
  };
}

export class PgStore implements ServiceStore {
  /**
   * Workspaces found so far, by id. A workspace is never updated, moved or deleted, so a found one
   * stays true and every search's ownership check need not ask the database again (issue 7: one of
   * three queries per search). A change that updates or deletes workspaces must drop entries here,
   * and in the other processes too.
   */
  private readonly workspaces = new LruMap<string, Readonly<Workspace>>(10_000);

  constructor(readonly pool: pg.Pool) {}

  // ---- accounts and keys --------------------------------------------------------------------------

  async ensureAccount(name: string): Promise<{ id: string; name: string }> {
    const existing = await this.findAccount(name);
    if (existing) return existing;
    const id = `acc_${name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .slice(0, 40)}_${Date.now().toString(36)}`;
    await this.pool.query('INSERT INTO accounts (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      id,
      name,
    ]);
    return (await this.findAccount(name))!;
  }

  async findAccount(idOrName: string): Promise<{ id: string; name: string } | undefined> {
    const r = await this.pool.query('SELECT id, name FROM accounts WHERE id = $1 OR name = $1 LIMIT 1', [
      idOrName,
    ]);
    return r.rows[0] as { id: string; name: string } | undefined;
  }

  async insertApiKey(key: NewApiKey): Promise<ApiKeyRecord> {
    const r = await this.pool.query(
      `INSERT INTO api_keys (id, account_id, name, key_prefix, key_hash, scopes)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [key.id, key.accountId, key.name, key.prefix, key.hash, key.scopes],
    );
    return toApiKey(r.rows[0] as Row);
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const r = await this.pool.query('SELECT * FROM api_keys WHERE key_hash = $1', [hash]);
    return r.rows[0] ? toApiKey(r.rows[0] as Row) : undefined;
  }

  async listApiKeys(accountId: string | undefined): Promise<ApiKeyRecord[]> {
    const r = await this.pool.query(
      'SELECT * FROM api_keys WHERE ($1::text IS NULL OR account_id = $1) ORDER BY created_at',
      [accountId ?? null],
    );
    return r.rows.map((row) => toApiKey(row as Row));
  }

  async revokeApiKey(idOrPrefix: string, accountId: string | undefined): Promise<ApiKeyRecord | undefined> {
    const r = await this.pool.query(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
       WHERE (id = $1 OR key_prefix = $1) AND ($2::text IS NULL OR account_id = $2) RETURNING *`,
      [idOrPrefix, accountId ?? null],
    );
    return r.rows[0] ? toApiKey(r.rows[0] as Row) : undefined;
  }

  async touchApiKey(id: string): Promise<void> {
    await this.pool.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [id]);
  }

  // ---- ingestion ----------------------------------------------------------------------------------

  async workspaceExists(accountId: string, workspaceId: string): Promise<boolean> {
    const r = await this.pool.query('SELECT 1 FROM workspaces WHERE id = $1 AND account_id = $2', [
      workspaceId,
      accountId,
    ]);
    return (r.rowCount ?? 0) > 0;
  }

  async createUpload(upload: NewUpload): Promise<UploadOutcome> {
    // Two attempts: a concurrent request with the same idempotency key can win the race to insert it,
    // in which case we roll back and answer from the winner's record.
    for (let attempt = 0; attempt < 2; attempt++) {
      const outcome = await inTransaction(this.pool, async (c) => {
        if (upload.idempotency) {
          const prior = await this.replayOf(c, upload.accountId, upload.idempotency);
          if (prior) return prior;
        }
        let workspace: Workspace;
        if (upload.workspaceId) {
          const r = await c.query('SELECT * FROM workspaces WHERE id = $1 AND account_id = $2 FOR SHARE', [
            upload.workspaceId,
            upload.accountId,
          ]);
          if (!r.rows[0]) return { kind: 'workspace_not_found' } as const;
          workspace = toWorkspace(r.rows[0] as Row);
        } else {
          const r = await c.query('INSERT INTO workspaces (id, account_id) VALUES ($1, $2) RETURNING *', [
            upload.newWorkspaceId,
            upload.accountId,
          ]);
          workspace = toWorkspace(r.rows[0] as Row);
        }
        const runRow = await c.query(
          `INSERT INTO runs (id, account_id, workspace_id, status) VALUES ($1, $2, $3, 'processing') RETURNING *`,
          [upload.runId, upload.accountId, workspace.id],
        );
        const f = upload.files;
        const docs = await c.query(
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
          .map((r) => toDocument(r as Row))
          .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
        return { kind: 'created', workspace, run: toRun(runRow.rows[0] as Row), documents } as const;
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
    const r = await c.query(
      'SELECT request_hash, run_id FROM idempotency_keys WHERE account_id = $1 AND key = $2',
      [accountId, idem.key],
    );
    const row = r.rows[0] as Row | undefined;
    if (!row) return undefined;
    if (row.request_hash !== idem.requestHash) return { kind: 'idempotency_conflict' };
    const run = toRun((await c.query('SELECT * FROM runs WHERE id = $1', [row.run_id])).rows[0] as Row);
    const workspace = toWorkspace(
      (await c.query('SELECT * FROM workspaces WHERE id = $1', [run.workspaceId])).rows[0] as Row,
    );
    const docs = await c.query('SELECT * FROM documents WHERE run_id = $1 ORDER BY created_at, id', [run.id]);
    return { kind: 'replayed', workspace, run, documents: docs.rows.map((d) => toDocument(d as Row)) };
  }

  // ---- runs ---------------------------------------------------------------------------------------

  async getRun(accountId: string, runId: string): Promise<RunView | undefined> {
    const r = await this.pool.query('SELECT * FROM runs WHERE id = $1 AND account_id = $2', [
      runId,
      accountId,
    ]);
    if (!r.rows[0]) return undefined;
    const run = toRun(r.rows[0] as Row);
    const counts = await this.pool.query(
      'SELECT status, count(*) AS n FROM documents WHERE run_id = $1 GROUP BY status',
      [runId],
    );
    const failures = await this.pool.query(
      `SELECT id, filename, error_code, error_message FROM documents
       WHERE run_id = $1 AND status = 'failed' ORDER BY created_at, id`,
      [runId],
    );
    // Processed: finished by a worker (not cancelled or deleted, which finish many at once).
    const activity = await this.pool.query(
      `WITH d AS (
         SELECT min(started_at) AS first_started,
                max(finished_at) FILTER (WHERE status IN ('ready', 'needs_ocr', 'failed')) AS last_finished,
                count(*) FILTER (WHERE status IN ('ready', 'needs_ocr', 'failed')) AS processed,
                count(*) FILTER (WHERE status IN ('ready', 'needs_ocr', 'failed')
                                   AND finished_at > now() - make_interval(secs => $2::float8)) AS recent
         FROM documents WHERE run_id = $1)
       SELECT processed, recent,
              coalesce(least($2::float8, extract(epoch FROM now() - first_started)::float8), 0) AS window_seconds,
              coalesce(extract(epoch FROM last_finished - first_started)::float8, 0) AS busy_seconds
       FROM d`,
      [runId, RUN_ACTIVITY_WINDOW_SECONDS],
    );
    const a = activity.rows[0] as Row;
    return {
      ...run,
      counts: countsFrom(counts.rows as Row[]),
      activity: {
        processed: Number(a.processed),
        busySeconds: Math.max(0, a.busy_seconds as number),
        recentlyProcessed: Number(a.recent),
        windowSeconds: Math.max(0, a.window_seconds as number),
      },
      failures: failures.rows.map((f) => ({
        documentId: f.id as string,
        filename: f.filename as string,
        code: (f.error_code as string | null) ?? 'unknown',
        message: (f.error_message as string | null) ?? '',
      })),
    };
  }

  async listRunDocuments(runId: string): Promise<DocumentRecord[]> {
    const r = await this.pool.query('SELECT * FROM documents WHERE run_id = $1 ORDER BY created_at, id', [
      runId,
    ]);
    return r.rows.map((d) => toDocument(d as Row));
  }

  async transitionRun(
    accountId: string,
    runId: string,
    from: RunStatus[],
    to: RunStatus,
  ): Promise<{ changed: boolean; run: Run | undefined }> {
    return inTransaction(this.pool, async (c) => {
      const r = await c.query('SELECT * FROM runs WHERE id = $1 AND account_id = $2 FOR UPDATE', [
        runId,
        accountId,
      ]);
      if (!r.rows[0]) return { changed: false, run: undefined };
      const run = toRun(r.rows[0] as Row);
      if (!from.includes(run.status)) return { changed: false, run };
      const terminal = to === 'cancelled' || to === 'completed' || to === 'failed';
      const u = await c.query(
        `UPDATE runs SET status = $2, updated_at = now(), finished_at = CASE WHEN $3 THEN now() ELSE NULL END
         WHERE id = $1 RETURNING *`,
        [runId, to, terminal],
      );
      return { changed: true, run: toRun(u.rows[0] as Row) };
    });
  }

  async cancelQueuedDocuments(runId: string): Promise<void> {
    await this.pool.query(
      `UPDATE documents SET status = 'cancelled', stage = 'done', error_code = 'cancelled',
         error_message = 'The run was cancelled before this document was processed.', fetch_headers = NULL,
         updated_at = now(), finished_at = now()
       WHERE run_id = $1 AND status = 'queued'`,
      [runId],
    );
  }

  async queuedDocumentIds(runId: string): Promise<string[]> {
    const r = await this.pool.query(
      `SELECT id FROM documents WHERE run_id = $1 AND status IN ('queued', 'processing') ORDER BY created_at, id`,
      [runId],
    );
    return r.rows.map((x) => x.id as string);
  }

  async settleRun(runId: string): Promise<void> {
    await inTransaction(this.pool, (c) => this.settleRunIn(c, runId));
  }

  /** Call inside a transaction that already holds (or may take) the run's row lock. */
  private async settleRunIn(c: pg.PoolClient, runId: string): Promise<void> {
    const run = await c.query('SELECT status FROM runs WHERE id = $1 FOR UPDATE', [runId]);
    if (run.rows[0]?.status !== 'processing') return;
    const s = await c.query(
      `SELECT count(*) FILTER (WHERE status IN ('queued', 'processing')) AS pending,
              count(*) FILTER (WHERE status IN ('ready', 'needs_ocr')) AS ok,
              count(*) FILTER (WHERE status = 'failed') AS failed
       FROM documents WHERE run_id = $1`,
      [runId],
    );
    const { pending, ok, failed } = s.rows[0] as { pending: number; ok: number; failed: number };
    if (pending > 0) return;
    const status: RunStatus = failed > 0 && ok === 0 ? 'failed' : 'completed';
    await c.query('UPDATE runs SET status = $2, updated_at = now(), finished_at = now() WHERE id = $1', [
      runId,
      status,
    ]);
  }

  // ---- documents and workspaces -------------------------------------------------------------------

  async getDocument(accountId: string, documentId: string): Promise<DocumentRecord | undefined> {
    const r = await this.pool.query(
      `SELECT * FROM documents WHERE id = $1 AND account_id = $2 AND status <> 'deleted'`,
      [documentId, accountId],
    );
    return r.rows[0] ? toDocument(r.rows[0] as Row) : undefined;
  }

  async listDocuments(accountId: string, workspaceId: string): Promise<DocumentRecord[]> {
    const r = await this.pool.query(
      `SELECT * FROM documents WHERE workspace_id = $1 AND account_id = $2 AND status <> 'deleted'
       ORDER BY created_at, id`,
      [workspaceId, accountId],
    );
    return r.rows.map((d) => toDocument(d as Row));
  }

  async markDeleted(accountId: string, documentId: string): Promise<DocumentRecord | undefined> {
    return inTransaction(this.pool, async (c) => {
      const r = await c.query(
        `UPDATE documents SET status = 'deleted', stage = 'done', lease_owner = NULL, lease_expires_at = NULL, fetch_headers = NULL,
           updated_at = now(), finished_at = coalesce(finished_at, now())
         WHERE id = $1 AND account_id = $2 AND status <> 'deleted' RETURNING *`,
        [documentId, accountId],
      );
      if (!r.rows[0]) return undefined;
      const doc = toDocument(r.rows[0] as Row);
      // Deleting the last unfinished document of a run finishes the run.
      await this.settleRunIn(c, doc.runId);
      return doc;
    });
  }

  async liveDocumentIds(workspaceId: string, documentIds: string[]): Promise<Set<string>> {
    if (documentIds.length === 0) return new Set();
    const r = await this.pool.query(
      `SELECT id FROM documents WHERE workspace_id = $1 AND id = ANY($2::text[]) AND status = 'ready'`,
      [workspaceId, documentIds],
    );
    return new Set(r.rows.map((x) => x.id as string));
  }

  async countsByStatus(workspaceId: string): Promise<DocumentCounts> {
    const r = await this.pool.query(
      'SELECT status, count(*) AS n FROM documents WHERE workspace_id = $1 GROUP BY status',
      [workspaceId],
    );
    return countsFrom(r.rows as Row[]);
  }

  async getWorkspace(accountId: string, workspaceId: string): Promise<Workspace | undefined> {
    const known = this.workspaces.get(workspaceId);
    if (known) return known.accountId === accountId ? known : undefined;
    const r = await this.pool.query('SELECT * FROM workspaces WHERE id = $1 AND account_id = $2', [
      workspaceId,
      accountId,
    ]);
    if (!r.rows[0]) return undefined;
    const found = Object.freeze(toWorkspace(r.rows[0] as Row));
    this.workspaces.set(workspaceId, found);
    return found;
  }

  async listWorkspaces(accountId: string): Promise<(Workspace & { counts: DocumentCounts })[]> {
    const ws = await this.pool.query(
      'SELECT * FROM workspaces WHERE account_id = $1 ORDER BY created_at DESC',
      [accountId],
    );
    const counts = await this.pool.query(
      `SELECT workspace_id, status, count(*) AS n FROM documents WHERE account_id = $1 GROUP BY workspace_id, status`,
      [accountId],
    );
    const byWs = new Map<string, Row[]>();
    for (const row of counts.rows as Row[]) {
      const list = byWs.get(row.workspace_id as string) ?? [];
      list.push(row);
      byWs.set(row.workspace_id as string, list);
    }
    return ws.rows.map((w) => ({
      ...toWorkspace(w as Row),
      counts: countsFrom(byWs.get(w.id as string) ?? []),
    }));
  }

  // ---- worker: documents in batches ---------------------------------------------------------------
  // A worker claims a batch, starts each document in turn, and finishes them a group at a time
  // (pipeline.ts). Leases, attempts and outcomes stay per document.

  /**
   * Claims documents for one batch, in the order given: those of the first claimable document's
   * workspace while their sizes add up to at most `maxBytes` (the first one always). A document of
   * unknown size (a URL not fetched yet) or whose last attempt started and did not finish weighs a
   * whole batch, so it is claimed alone: a document that crashed its worker cannot take a batch of
   * others down with it again. The others are `deferred`, left for another batch. A claimed document
   * is `processing` at stage `queued` until the worker starts it; its attempt counts from then.
   */
  async claimDocuments(documentIds: string[], workerId: string, options: ClaimOptions): Promise<BatchClaim> {
    return inTransaction(this.pool, async (c) => {
      // In id order, as every batch locks them, so two claims never wait on each other in a cycle.
      const r = await c.query(
        `SELECT d.*, r.status AS run_status, (d.lease_expires_at > now()) AS lease_live
         FROM documents d JOIN runs r ON r.id = d.run_id WHERE d.id = ANY($1::text[]) ORDER BY d.id
         FOR UPDATE OF d`,
        [documentIds],
      );
      const rows = new Map(r.rows.map((row) => [row.id as string, row as Row]));
      const out: BatchClaim = { claimed: [], deferred: [], exhausted: [], skipped: [] };
      const take: string[] = [];
      const paused: string[] = [];
      const cancelled: string[] = [];
      let workspaceId: string | undefined;
      let bytes = 0;
      for (const id of new Set(documentIds)) {
        const row = rows.get(id);
        if (!row || row.status === 'deleted') {
          out.skipped.push({ documentId: id, reason: 'gone' });
          continue;
        }
        const doc = toDocument(row);
        if (TERMINAL_DOCUMENT_STATUSES.has(doc.status)) {
          out.skipped.push({ documentId: id, reason: 'terminal' });
        } else if (row.lease_live === true && row.lease_owner !== workerId) {
          out.skipped.push({ documentId: id, reason: 'leased_elsewhere' });
        } else if (row.run_status === 'paused') {
          paused.push(id);
          out.skipped.push({ documentId: id, reason: 'run_paused' });
        } else if (row.run_status === 'cancelled') {
          cancelled.push(id);
          out.skipped.push({ documentId: id, reason: 'run_cancelled' });
        } else if (doc.attempts >= options.maxAttempts) {
          out.exhausted.push(doc);
        } else {
          const weight =
            doc.attempts > 0 || doc.sizeBytes === null ? Number.POSITIVE_INFINITY : doc.sizeBytes;
          if (take.length === 0) {
            workspaceId = doc.workspaceId;
            bytes = weight;
            take.push(id);
          } else if (doc.workspaceId === workspaceId && bytes + weight <= options.maxBytes) {
            bytes += weight;
            take.push(id);
          } else {
            out.deferred.push(id);
          }
        }
      }
      if (paused.length > 0) {
        await c.query(
          `UPDATE documents SET status = 'queued', stage = 'queued', lease_owner = NULL, lease_expires_at = NULL,
             updated_at = now() WHERE id = ANY($1::text[])`,
          [paused],
        );
      }
      if (cancelled.length > 0) {
        await c.query(
          `UPDATE documents SET status = 'cancelled', stage = 'done', error_code = 'cancelled',
             error_message = 'The run was cancelled before this document was processed.', fetch_headers = NULL,
             lease_owner = NULL, lease_expires_at = NULL, updated_at = now(), finished_at = now()
           WHERE id = ANY($1::text[])`,
          [cancelled],
        );
      }
      if (take.length > 0) {
        const u = await c.query(
          `UPDATE documents SET status = 'processing', stage = 'queued', lease_owner = $2,
             lease_expires_at = now() + make_interval(secs => $3), updated_at = now()
           WHERE id = ANY($1::text[]) RETURNING *`,
          [take, workerId, options.leaseSeconds],
        );
        const byId = new Map(u.rows.map((row) => [row.id as string, toDocument(row as Row)]));
        out.claimed = take.map((id) => byId.get(id)!);
      }
      return out;
    });
  }

  /**
   * Starts a claimed document: counts the attempt and enters its first stage, unless its run is no
   * longer processing (the run's status says what to do instead).
   */
  async startDocument(documentId: string, workerId: string, stage: DocumentStage): Promise<StartOutcome> {
    const r = await this.pool.query(
      `WITH cur AS (
         SELECT d.id, r.status AS run_status FROM documents d JOIN runs r ON r.id = d.run_id
         WHERE d.id = $1 AND d.lease_owner = $2 AND d.status = 'processing' FOR UPDATE OF d
       ), started AS (
         UPDATE documents d SET stage = $3, attempts = d.attempts + 1, started_at = coalesce(d.started_at, now()),
           updated_at = now()
         FROM cur WHERE d.id = cur.id AND cur.run_status = 'processing' RETURNING d.attempts
       )
       SELECT cur.run_status, (SELECT attempts FROM started) AS attempts FROM cur`,
      [documentId, workerId, stage],
    );
    const row = r.rows[0] as Row | undefined;
    if (!row) return { held: false };
    return {
      held: true,
      runStatus: row.run_status as RunStatus,
      attempts: (row.attempts as number | null) ?? 0,
    };
  }

  /** Moves held documents to `stage`; answers, for each one still held, its run's status. */
  async setStages(
    documentIds: string[],
    workerId: string,
    stage: DocumentStage,
  ): Promise<Map<string, RunStatus>> {
    const r = await this.pool.query(
      `UPDATE documents d SET stage = $3, updated_at = now() FROM runs r
       WHERE d.id = ANY($1::text[]) AND d.lease_owner = $2 AND d.status = 'processing' AND r.id = d.run_id
       RETURNING d.id, r.status AS run_status`,
      [documentIds, workerId, stage],
    );
    return new Map(r.rows.map((x) => [x.id as string, x.run_status as RunStatus]));
  }

  /** Extends the leases; answers the documents this worker still holds. */
  async renewLeases(documentIds: string[], workerId: string, leaseSeconds: number): Promise<Set<string>> {
    const r = await this.pool.query(
      `UPDATE documents SET lease_expires_at = now() + make_interval(secs => $3)
       WHERE id = ANY($1::text[]) AND lease_owner = $2 AND status = 'processing' RETURNING id`,
      [documentIds, workerId, leaseSeconds],
    );
    return new Set(r.rows.map((x) => x.id as string));
  }

  /** Lets the leases lapse now: the documents are retried (an attempt of theirs has started). */
  async releaseLeases(documentIds: string[], workerId: string): Promise<void> {
    await this.pool.query(
      `UPDATE documents SET lease_expires_at = now(), updated_at = now()
       WHERE id = ANY($1::text[]) AND lease_owner = $2`,
      [documentIds, workerId],
    );
  }

  /** Gives claimed documents that were never started back to the queue, as if never claimed. */
  async unclaimDocuments(documentIds: string[], workerId: string): Promise<void> {
    await this.pool.query(
      `UPDATE documents SET status = 'queued', stage = 'queued', lease_owner = NULL, lease_expires_at = NULL,
         updated_at = now()
       WHERE id = ANY($1::text[]) AND lease_owner = $2 AND status = 'processing'`,
      [documentIds, workerId],
    );
  }

  /**
   * Finishes documents this worker holds, and settles their runs, in one transaction. Answers the
   * documents finished (not those deleted, cancelled or taken over meanwhile).
   */
  async finishDocuments(
    workerId: string,
    results: { documentId: string; result: FinishDocument }[],
  ): Promise<Set<string>> {
    if (results.length === 0) return new Set();
    const ids = results.map((x) => x.documentId);
    return inTransaction(this.pool, async (c) => {
      // Lock order: runs (in id order), then documents, as in transitionRun, so settling never deadlocks.
      const runs = await c.query(
        `SELECT id FROM runs WHERE id IN (SELECT run_id FROM documents WHERE id = ANY($1::text[]))
         ORDER BY id FOR UPDATE`,
        [ids],
      );
      const r = results.map((x) => x.result);
      const u = await c.query(
        `UPDATE documents d SET status = u.status, stage = 'done', error_code = u.code, error_message = u.message,
           fetch_headers = NULL, media_type = coalesce(u.media_type, d.media_type),
           page_count = coalesce(u.page_count, d.page_count), chunk_count = coalesce(u.chunk_count, d.chunk_count),
           lease_owner = NULL, lease_expires_at = NULL, processed_by = $1, updated_at = now(), finished_at = now()
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[])
           AS u(id, status, code, message, media_type, page_count, chunk_count)
         WHERE d.id = u.id AND d.lease_owner = $1 AND d.status = 'processing'
         RETURNING d.id`,
        [
          workerId,
          ids,
          r.map((x) => x.status),
          r.map((x) => x.errorCode ?? null),
          r.map((x) => x.errorMessage ?? null),
          r.map((x) => x.mediaType ?? null),
          r.map((x) => x.pageCount ?? null),
          r.map((x) => x.chunkCount ?? null),
        ],
      );
      for (const run of runs.rows) await this.settleRunIn(c, run.id as string);
      return new Set(u.rows.map((x) => x.id as string));
    });
  }

  // ---- worker: URL documents, recovery ------------------------------------------------------------

  async recordFetched(
    documentId: string,
    workerId: string,
    fetched: { sizeBytes: number; sha256: string; declaredMediaType: string | null; filename: string },
  ): Promise<DocumentRecord | undefined> {
    const r = await this.pool.query(
      `UPDATE documents SET size_bytes = $3, sha256 = $4, declared_media_type = $5, filename = $6,
         fetch_headers = NULL, updated_at = now()
       WHERE id = $1 AND lease_owner = $2 AND status = 'processing' RETURNING *`,
      [documentId, workerId, fetched.sizeBytes, fetched.sha256, fetched.declaredMediaType, fetched.filename],
    );
    return r.rows[0] ? toDocument(r.rows[0] as Row) : undefined;
  }

  async fetchHeadersOf(documentId: string): Promise<string | null> {
    const r = await this.pool.query('SELECT fetch_headers FROM documents WHERE id = $1', [documentId]);
    return (r.rows[0]?.fetch_headers as string | null | undefined) ?? null;
  }

  async encryptedFetchHeaders(): Promise<{ documentId: string; value: string }[]> {
    const r = await this.pool.query(
      'SELECT id, fetch_headers FROM documents WHERE fetch_headers IS NOT NULL',
    );
    return r.rows.map((x) => ({ documentId: x.id as string, value: x.fetch_headers as string }));
  }

  async replaceFetchHeaders(documentId: string, value: string): Promise<void> {
    await this.pool.query(
      'UPDATE documents SET fetch_headers = $2 WHERE id = $1 AND fetch_headers IS NOT NULL',
      [documentId, value],
    );
  }

  /** Fails a document that is not leased (used when its attempts are exhausted). */
  async failUnleased(documentId: string, code: string, message: string): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      const d = await c.query('SELECT run_id FROM documents WHERE id = $1', [documentId]);
      const runId = d.rows[0]?.run_id as string | undefined;
      if (!runId) return;
      await c.query('SELECT 1 FROM runs WHERE id = $1 FOR UPDATE', [runId]);
      await c.query(
        `UPDATE documents SET status = 'failed', stage = 'done', error_code = $2, error_message = $3, fetch_headers = NULL,
           lease_owner = NULL, lease_expires_at = NULL, updated_at = now(), finished_at = now()
         WHERE id = $1 AND status IN ('queued', 'processing')`,
        [documentId, code, message],
      );
      await this.settleRunIn(c, runId);
    });
  }

  async findOrphanedDocuments(limit: number, afterId: string | null): Promise<string[]> {
    const r = await this.pool.query(
      `SELECT d.id FROM documents d JOIN runs r ON r.id = d.run_id
       WHERE d.status IN ('queued', 'processing') AND r.status = 'processing'
         AND (d.lease_expires_at IS NULL OR d.lease_expires_at < now())
         AND ($2::text IS NULL OR d.id > $2)
       ORDER BY d.id LIMIT $1`,
      [limit, afterId],
    );
    return r.rows.map((x) => x.id as string);
  }

  async findUnsettledRuns(limit: number): Promise<string[]> {
    const r = await this.pool.query(
      `SELECT r.id FROM runs r WHERE r.status = 'processing'
         AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.run_id = r.id AND d.status IN ('queued', 'processing'))
       LIMIT $1`,
      [limit],
    );
    return r.rows.map((x) => x.id as string);
  }

  async releaseAllLeases(): Promise<void> {
    await this.pool.query(
      `UPDATE documents SET lease_expires_at = now() WHERE status = 'processing' AND lease_expires_at > now()`,
    );
  }

  // ---- operations ----------------------------------------------------------------------------------

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async schemaVersion(): Promise<number> {
    const r = await this.pool.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    return r.rows[0]?.v ?? 0;
  }

  async globalDocumentCounts(): Promise<Record<string, number>> {
    const r = await this.pool.query('SELECT status, count(*) AS n FROM documents GROUP BY status');
    return Object.fromEntries(r.rows.map((x) => [x.status as string, Number(x.n)]));
  }

  async globalRunCounts(): Promise<Record<string, number>> {
    const r = await this.pool.query('SELECT status, count(*) AS n FROM runs GROUP BY status');
    return Object.fromEntries(r.rows.map((x) => [x.status as string, Number(x.n)]));
  }

  // ---- console users and sessions ------------------------------------------------------------------

  async insertUser(user: {
    id: string;
    accountId: string;
    email: string;
    passwordHash: string;
  }): Promise<User> {
    const r = await this.pool.query(
      'INSERT INTO users (id, account_id, email, password_hash) VALUES ($1, $2, $3, $4) RETURNING *',
      [user.id, user.accountId, user.email, user.passwordHash],
    );
    return toUser(r.rows[0] as Row);
  }

  async findUserByEmail(email: string): Promise<{ user: User; passwordHash: string } | undefined> {
    const r = await this.pool.query('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
    const row = r.rows[0] as Row | undefined;
    return row ? { user: toUser(row), passwordHash: row.password_hash as string } : undefined;
  }

  async listUsers(accountId: string | undefined): Promise<User[]> {
    const r = await this.pool.query(
      'SELECT * FROM users WHERE ($1::text IS NULL OR account_id = $1) ORDER BY created_at',
      [accountId ?? null],
    );
    return r.rows.map((u) => toUser(u as Row));
  }

  async insertSession(s: {
    id: string;
    userId: string;
    tokenHash: string;
    csrfToken: string;
    expiresAt: Date;
  }): Promise<void> {
    await this.pool.query(
      'INSERT INTO sessions (id, user_id, token_hash, csrf_token, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [s.id, s.userId, s.tokenHash, s.csrfToken, s.expiresAt],
    );
    await this.pool.query('UPDATE users SET last_login_at = now() WHERE id = $1', [s.userId]);
    // Expired sessions are useless; sweep them on the (rare) sign-in path.
    await this.pool.query('DELETE FROM sessions WHERE expires_at < now()');
  }

  async findSessionByTokenHash(tokenHash: string): Promise<StoredSession | undefined> {
    const r = await this.pool.query(
      `SELECT s.id AS session_id, s.csrf_token, s.expires_at, s.last_seen_at, u.*
       FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1`,
      [tokenHash],
    );
    const row = r.rows[0] as Row | undefined;
    if (!row) return undefined;
    return {
      sessionId: row.session_id as string,
      csrfToken: row.csrf_token as string,
      expiresAt: toDate(row.expires_at),
      lastSeenAt: toDate(row.last_seen_at),
      user: toUser(row),
    };
  }

  async touchSession(sessionId: string, expiresAt: Date): Promise<void> {
    await this.pool.query('UPDATE sessions SET last_seen_at = now(), expires_at = $2 WHERE id = $1', [
      sessionId,
      expiresAt,
    ]);
  }

  async deleteSessionByTokenHash(tokenHash: string): Promise<void> {
    await this.pool.query('DELETE FROM sessions WHERE token_hash = $1', [tokenHash]);
  }

  async accountOverview(accountId: string): Promise<AccountOverview> {
    const counts = await this.pool.query(
      'SELECT status, count(*) AS n FROM documents WHERE account_id = $1 GROUP BY status',
      [accountId],
    );
    const runs = await this.pool.query(
      `SELECT count(*) AS n FROM runs WHERE account_id = $1 AND status = 'processing'`,
      [accountId],
    );
    const active = await this.pool.query(
      `SELECT r.id, r.workspace_id, r.status, r.created_at, count(d.id) AS documents,
              count(d.id) FILTER (WHERE d.status NOT IN ('queued', 'processing')) AS finished
       FROM runs r LEFT JOIN documents d ON d.run_id = r.id
       WHERE r.account_id = $1 AND r.status IN ('processing', 'paused')
       GROUP BY r.id ORDER BY r.created_at DESC LIMIT 10`,
      [accountId],
    );
    const failures = await this.pool.query(
      `SELECT id, filename, error_code, error_message, workspace_id, run_id, finished_at FROM documents
       WHERE account_id = $1 AND status = 'failed' ORDER BY finished_at DESC NULLS LAST LIMIT 10`,
      [accountId],
    );
    return {
      documents: countsFrom(counts.rows as Row[]),
      runsProcessing: Number(runs.rows[0]?.n ?? 0),
      activeRuns: active.rows.map((r) => ({
        id: r.id as string,
        workspaceId: r.workspace_id as string,
        status: r.status as RunStatus,
        createdAt: toDate(r.created_at),
        documents: Number(r.documents),
        finished: Number(r.finished),
      })),
      recentFailures: failures.rows.map((f) => ({
        documentId: f.id as string,
        filename: f.filename as string,
        code: (f.error_code as string | null) ?? 'unknown',
        message: (f.error_message as string | null) ?? '',
        workspaceId: f.workspace_id as string,
        runId: f.run_id as string,
        failedAt: toDate(f.finished_at),
      })),
    };
  }

  async isDeleted(documentId: string): Promise<boolean> {
    const r = await this.pool.query('SELECT status FROM documents WHERE id = $1', [documentId]);
    return !r.rows[0] || r.rows[0].status === 'deleted';
  }
}

class LostIdempotencyRace extends Error {}
