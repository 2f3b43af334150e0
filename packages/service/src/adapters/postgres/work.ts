import type {
  BatchClaim,
  ClaimOptions,
  FetchedBytes,
  FinishDocument,
  RecordedFetch,
  StartOutcome,
  WorkStore,
} from '../../domain/stores.js';
import type { DocumentStage, RunStatus } from '../../domain/types.js';
import type { DocumentFailureCode } from '../../errors.js';
import { claimDocuments } from './claims.js';
import { inTransaction, type Pool, type PoolClient } from './db.js';
import { keepIndexedVersion, recordFetched } from './fetched.js';
import { announceDocumentsIn } from './outbox.js';
import { type DocumentRow, toDocument } from './rows.js';
import { settleRunIn } from './runs.js';
import { startDocuments } from './starts.js';

/**
 * The worker's side of documents: claiming with a lease, recording stages and results, and what the
 * reconciler looks for. Only the worker and the CLI hold this repository; HTTP routes cannot.
 */
export class PgWorkRepository implements WorkStore {
  constructor(private readonly pool: Pool) {}

  /** See claims.ts: batches in turns across accounts and workspaces. */
  claimDocuments(documentIds: string[], workerId: string, options: ClaimOptions): Promise<BatchClaim> {
    return claimDocuments(this.pool, documentIds, workerId, options);
  }

  /**
   * Starts claimed documents: counts each one's attempt and enters its first stage, unless its run is
   * no longer processing (the run's status says what to do instead).
   */
  startDocuments(
    documentIds: string[],
    workerId: string,
    stage: DocumentStage,
  ): Promise<Map<string, StartOutcome>> {
    return startDocuments(this.pool, documentIds, workerId, stage);
  }

  async setStages(
    documentIds: string[],
    workerId: string,
    stage: DocumentStage,
  ): Promise<Map<string, RunStatus>> {
    const r = await this.pool.query<{ id: string; run_status: RunStatus }>(
      `UPDATE documents d SET stage = $3, updated_at = now() FROM runs r
       WHERE d.id = ANY($1::text[]) AND d.lease_owner = $2 AND d.status = 'processing' AND r.id = d.run_id
       RETURNING d.id, r.status AS run_status`,
      [documentIds, workerId, stage],
    );
    return new Map(r.rows.map((x) => [x.id, x.run_status]));
  }

  async renewLeases(documentIds: string[], workerId: string, leaseSeconds: number): Promise<Set<string>> {
    const r = await this.pool.query<{ id: string }>(
      `UPDATE documents SET lease_expires_at = now() + make_interval(secs => $3)
       WHERE id = ANY($1::text[]) AND lease_owner = $2 AND status = 'processing' RETURNING id`,
      [documentIds, workerId, leaseSeconds],
    );
    return new Set(r.rows.map((x) => x.id));
  }

  /** Lets the leases lapse now: the documents are retried (an attempt of theirs has started). */
  async releaseLeases(documentIds: string[], workerId: string): Promise<void> {
    await this.pool.query(
      `UPDATE documents SET lease_expires_at = now(), updated_at = now()
       WHERE id = ANY($1::text[]) AND lease_owner = $2`,
      [documentIds, workerId],
    );
  }

  /**
   * Gives claimed documents whose work never began back to the queue, as if never claimed: those
   * started ahead with a group get their attempt back.
   */
  async unclaimDocuments(
    documentIds: string[],
    workerId: string,
    takeBackAttempt: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    await this.pool.query(
      `UPDATE documents SET status = 'queued', stage = 'queued', lease_owner = NULL, lease_expires_at = NULL,
         attempts = CASE WHEN id = ANY($3::text[]) THEN greatest(attempts - 1, 0) ELSE attempts END,
         updated_at = now()
       WHERE id = ANY($1::text[]) AND lease_owner = $2 AND status = 'processing'`,
      [documentIds, workerId, [...takeBackAttempt]],
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
      const runs = await c.query<{ id: string }>(
        `SELECT id FROM runs WHERE id IN (SELECT run_id FROM documents WHERE id = ANY($1::text[]))
         ORDER BY id FOR UPDATE`,
        [ids],
      );
      const r = results.map((x) => x.result);
      const u = await c.query<DocumentRow>(
        `UPDATE documents d SET status = u.status, stage = 'done', error_code = u.code, error_message = u.message,
           fetch_headers = NULL, media_type = coalesce(u.media_type, d.media_type),
           page_count = coalesce(u.page_count, d.page_count), chunk_count = coalesce(u.chunk_count, d.chunk_count),
           language = coalesce(u.language, d.language),
           lease_owner = NULL, lease_expires_at = NULL, processed_by = $1, updated_at = now(), finished_at = now()
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::text[])
           AS u(id, status, code, message, media_type, page_count, chunk_count, language)
         WHERE d.id = u.id AND d.lease_owner = $1 AND d.status = 'processing'
         RETURNING d.*`,
        [
          workerId,
          ids,
          r.map((x) => x.status),
          r.map((x) => x.errorCode ?? null),
          r.map((x) => x.errorMessage ?? null),
          r.map((x) => x.mediaType ?? null),
          r.map((x) => x.pageCount ?? null),
          r.map((x) => x.chunkCount ?? null),
          r.map((x) => x.language ?? null),
        ],
      );
      // The workspace's languages grow with each language a document is indexed in (never shrink: a
      // language too many only costs a question one more reading).
      await c.query(
        `UPDATE workspaces w SET languages = ARRAY(SELECT DISTINCT unnest(w.languages || n.added) ORDER BY 1)
           FROM (SELECT d.workspace_id, array_agg(DISTINCT d.language) AS added FROM documents d
                  WHERE d.id = ANY($1::text[]) AND d.status = 'ready' AND d.language IS NOT NULL
                  GROUP BY d.workspace_id) n
          WHERE w.id = n.workspace_id AND NOT (w.languages @> n.added)`,
        [u.rows.map((x) => x.id)],
      );
      await announceDocumentsIn(c, u.rows.map(toDocument));
      for (const run of runs.rows) await settleRunIn(c, run.id);
      return new Set(u.rows.map((x) => x.id));
    });
  }

  recordFetched(workerId: string, documents: FetchedBytes[]): Promise<Map<string, RecordedFetch>> {
    return recordFetched(this.pool, workerId, documents);
  }

  keepIndexedVersion(documentId: string, workerId: string): Promise<boolean> {
    return keepIndexedVersion(this.pool, documentId, workerId);
  }

  async fetchHeadersOf(documentId: string): Promise<string | null> {
    const r = await this.pool.query<Pick<DocumentRow, 'fetch_headers'>>(
      'SELECT fetch_headers FROM documents WHERE id = $1',
      [documentId],
    );
    return r.rows[0]?.fetch_headers ?? null;
  }

  async failUnleased(documentId: string, code: DocumentFailureCode, message: string): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      const runId = await lockRunOf(c, documentId);
      if (!runId) return;
      const failed = await c.query<DocumentRow>(
        `UPDATE documents SET status = 'failed', stage = 'done', error_code = $2, error_message = $3, fetch_headers = NULL,
           lease_owner = NULL, lease_expires_at = NULL, updated_at = now(), finished_at = now()
         WHERE id = $1 AND status IN ('queued', 'processing') RETURNING *`,
        [documentId, code, message],
      );
      await announceDocumentsIn(c, failed.rows.map(toDocument));
      await settleRunIn(c, runId);
    });
  }

  async countWaitingDocuments(olderThanSeconds: number): Promise<number> {
    const r = await this.pool.query<{ n: number }>(
      `SELECT count(*) AS n FROM documents d JOIN runs r ON r.id = d.run_id AND r.status = 'processing'
       WHERE d.status = 'queued' AND d.updated_at < now() - make_interval(secs => $1)`,
      [olderThanSeconds],
    );
    return r.rows[0]?.n ?? 0;
  }

  async requeueLostDocuments(limit: number, waitingSeconds: number): Promise<string[]> {
    // Marked in the same statement that finds them, so that the next pass (by any worker) skips them
    // until they may have been lost again. SKIP LOCKED: a document being claimed right now is not lost.
    const r = await this.pool.query<{ id: string }>(
      `UPDATE documents SET requeued_at = now()
       WHERE id IN (
         SELECT d.id FROM documents d JOIN runs r ON r.id = d.run_id AND r.status = 'processing'
         WHERE (d.status = 'queued' AND coalesce(d.requeued_at, d.updated_at) < now() - make_interval(secs => $2))
            OR (d.status = 'processing' AND coalesce(d.lease_expires_at, '-infinity') < now()
                AND (d.requeued_at IS NULL OR d.requeued_at < coalesce(d.lease_expires_at, '-infinity')
                     OR d.requeued_at < now() - make_interval(secs => $2)))
         ORDER BY d.id LIMIT $1
         FOR UPDATE OF d SKIP LOCKED
       )
       RETURNING id`,
      [limit, waitingSeconds],
    );
    return r.rows.map((x) => x.id).sort();
  }

  async findUnsettledRuns(limit: number): Promise<string[]> {
    const r = await this.pool.query<{ id: string }>(
      `SELECT r.id FROM runs r WHERE r.status = 'processing'
         AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.run_id = r.id AND d.status IN ('queued', 'processing'))
         AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.sync_run_id = r.id)
       LIMIT $1`,
      [limit],
    );
    return r.rows.map((x) => x.id);
  }

  async settleRun(runId: string): Promise<void> {
    await inTransaction(this.pool, (c) => settleRunIn(c, runId));
  }

  async runsAwaitingIndex(workspaceId: string): Promise<string[]> {
    const r = await this.pool.query<{ id: string }>(
      `SELECT id FROM runs WHERE workspace_id = $1 AND status = 'processing' AND awaiting_index_since IS NOT NULL
       ORDER BY id`,
      [workspaceId],
    );
    return r.rows.map((x) => x.id);
  }

  async completeIndexedRuns(runIds: string[]): Promise<void> {
    for (const runId of [...runIds].sort())
      await inTransaction(this.pool, (c) => settleRunIn(c, runId, true));
  }

  async workspacesAwaitingIndex(olderThanSeconds: number, limit: number): Promise<string[]> {
    const r = await this.pool.query<{ workspace_id: string }>(
      `SELECT DISTINCT workspace_id FROM runs WHERE status = 'processing' AND awaiting_index_since IS NOT NULL
         AND awaiting_index_since < now() - make_interval(secs => $1)
       LIMIT $2`,
      [olderThanSeconds, limit],
    );
    return r.rows.map((x) => x.workspace_id);
  }

  async releaseAllLeases(): Promise<void> {
    await this.pool.query(
      `UPDATE documents SET lease_expires_at = now() WHERE status = 'processing' AND lease_expires_at > now()`,
    );
    // The reconciler's and the maintenance jobs' leases of the process that owned the database before.
    await this.pool.query('DELETE FROM worker_leases');
  }

  async deletedAmong(
    workspaceId: string,
    documentIds: string[],
  ): Promise<{ workspace: boolean; documents: Set<string> }> {
    const r = await this.pool.query<{ workspace: boolean; live: string[] }>(
      `SELECT NOT EXISTS (SELECT 1 FROM workspaces WHERE id = $1) AS workspace,
              ARRAY(SELECT id FROM documents WHERE id = ANY($2::text[]) AND status <> 'deleted') AS live`,
      [workspaceId, documentIds],
    );
    const { workspace, live } = r.rows[0]!;
    const kept = new Set(live);
    return { workspace, documents: new Set(documentIds.filter((id) => !kept.has(id))) };
  }

  async reopenDeletion(workspaceId: string, objectKeys: string[]): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      await c.query(
        `INSERT INTO workspace_deletions (workspace_id, retry_after) VALUES ($1, now())
         ON CONFLICT (workspace_id)
         DO UPDATE SET retry_after = now(), generation = workspace_deletions.generation + 1`,
        [workspaceId],
      );
      await c.query(
        `INSERT INTO object_deletions (workspace_id, key) SELECT $1, k FROM unnest($2::text[]) AS k
         ON CONFLICT DO NOTHING`,
        [workspaceId, objectKeys],
      );
    });
  }
}

/**
 * Locks the run of a document before the document changes. Lock order: run, then document (as in
 * markDeleted and transitionRun), so settling never deadlocks.
 */
async function lockRunOf(c: PoolClient, documentId: string): Promise<string | undefined> {
  const d = await c.query<Pick<DocumentRow, 'run_id'>>('SELECT run_id FROM documents WHERE id = $1', [
    documentId,
  ]);
  const runId = d.rows[0]?.run_id;
  if (runId) await c.query('SELECT 1 FROM runs WHERE id = $1 FOR UPDATE', [runId]);
  return runId;
}
