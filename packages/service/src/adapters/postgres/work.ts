import type { ClaimResult, FinishDocument, WorkStore } from '../../domain/stores.js';
import {
  type DocumentRecord,
  type DocumentStage,
  type RunStatus,
  TERMINAL_DOCUMENT_STATUSES,
} from '../../domain/types.js';
import type { DocumentFailureCode } from '../../errors.js';
import { inTransaction, type Pool, type PoolClient } from './db.js';
import { type DocumentRow, toDocument } from './rows.js';
import { CANCELLED_BEFORE_PROCESSING, settleRunIn } from './runs.js';

/**
 * The worker's side of documents: claiming with a lease, recording stages and results, and what the
 * reconciler looks for. Only the worker and the CLI hold this repository; HTTP routes cannot.
 */
export class PgWorkRepository implements WorkStore {
  constructor(private readonly pool: Pool) {}

  async claimDocument(
    documentId: string,
    workerId: string,
    leaseSeconds: number,
    maxAttempts: number,
  ): Promise<ClaimResult> {
    return inTransaction(this.pool, async (c): Promise<ClaimResult> => {
      const r = await c.query<DocumentRow & { run_status: RunStatus; lease_live: boolean | null }>(
        `SELECT d.*, r.status AS run_status, (d.lease_expires_at > now()) AS lease_live
         FROM documents d JOIN runs r ON r.id = d.run_id WHERE d.id = $1 FOR UPDATE OF d`,
        [documentId],
      );
      const row = r.rows[0];
      if (!row || row.status === 'deleted') return { kind: 'gone' };
      const doc = toDocument(row);
      if (TERMINAL_DOCUMENT_STATUSES.has(doc.status)) return { kind: 'terminal' };
      if (row.lease_live === true && row.lease_owner !== workerId) return { kind: 'leased_elsewhere' };
      if (row.run_status === 'paused') {
        await c.query(
          `UPDATE documents SET status = 'queued', stage = 'queued', lease_owner = NULL, lease_expires_at = NULL,
             updated_at = now() WHERE id = $1`,
          [documentId],
        );
        return { kind: 'run_paused' };
      }
      if (row.run_status === 'cancelled') {
        await c.query(
          `UPDATE documents SET status = 'cancelled', stage = 'done', error_code = 'cancelled',
             error_message = $2, lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
             finished_at = now() WHERE id = $1`,
          [documentId, CANCELLED_BEFORE_PROCESSING],
        );
        return { kind: 'run_cancelled' };
      }
      if (doc.attempts >= maxAttempts) return { kind: 'attempts_exhausted', document: doc };
      const u = await c.query<DocumentRow>(
        `UPDATE documents SET status = 'processing', attempts = attempts + 1, lease_owner = $2,
           lease_expires_at = now() + make_interval(secs => $3), started_at = coalesce(started_at, now()),
           updated_at = now()
         WHERE id = $1 RETURNING *`,
        [documentId, workerId, leaseSeconds],
      );
      return { kind: 'claimed', document: toDocument(u.rows[0]!) };
    });
  }

  async renewLease(documentId: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE documents SET lease_expires_at = now() + make_interval(secs => $3)
       WHERE id = $1 AND lease_owner = $2 AND status = 'processing'`,
      [documentId, workerId, leaseSeconds],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async setStage(documentId: string, workerId: string, stage: DocumentStage): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE documents SET stage = $3, updated_at = now()
       WHERE id = $1 AND lease_owner = $2 AND status = 'processing'`,
      [documentId, workerId, stage],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async recordFetched(
    documentId: string,
    workerId: string,
    fetched: { sizeBytes: number; sha256: string; declaredMediaType: string | null; filename: string },
  ): Promise<DocumentRecord | undefined> {
    const r = await this.pool.query<DocumentRow>(
      `UPDATE documents SET size_bytes = $3, sha256 = $4, declared_media_type = $5, filename = $6,
         fetch_headers = NULL, updated_at = now()
       WHERE id = $1 AND lease_owner = $2 AND status = 'processing' RETURNING *`,
      [documentId, workerId, fetched.sizeBytes, fetched.sha256, fetched.declaredMediaType, fetched.filename],
    );
    return r.rows[0] && toDocument(r.rows[0]);
  }

  async fetchHeadersOf(documentId: string): Promise<string | null> {
    const r = await this.pool.query<Pick<DocumentRow, 'fetch_headers'>>(
      'SELECT fetch_headers FROM documents WHERE id = $1',
      [documentId],
    );
    return r.rows[0]?.fetch_headers ?? null;
  }

  async runStatusOf(documentId: string): Promise<RunStatus | undefined> {
    const r = await this.pool.query<{ status: RunStatus }>(
      'SELECT r.status FROM documents d JOIN runs r ON r.id = d.run_id WHERE d.id = $1',
      [documentId],
    );
    return r.rows[0]?.status;
  }

  async finishDocument(documentId: string, workerId: string, result: FinishDocument): Promise<boolean> {
    return inTransaction(this.pool, async (c) => {
      const runId = await lockRunOf(c, documentId);
      if (!runId) return false;
      const u = await c.query(
        `UPDATE documents SET status = $3, stage = 'done', error_code = $4, error_message = $5, fetch_headers = NULL,
           media_type = coalesce($6, media_type), page_count = coalesce($7, page_count),
           chunk_count = coalesce($8, chunk_count), lease_owner = NULL, lease_expires_at = NULL,
           processed_by = $2, updated_at = now(), finished_at = now()
         WHERE id = $1 AND lease_owner = $2 AND status = 'processing'`,
        [
          documentId,
          workerId,
          result.status,
          result.errorCode ?? null,
          result.errorMessage ?? null,
          result.mediaType ?? null,
          result.pageCount ?? null,
          result.chunkCount ?? null,
        ],
      );
      if (u.rowCount === 0) return false;
      await settleRunIn(c, runId);
      return true;
    });
  }

  async failUnleased(documentId: string, code: DocumentFailureCode, message: string): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      const runId = await lockRunOf(c, documentId);
      if (!runId) return;
      await c.query(
        `UPDATE documents SET status = 'failed', stage = 'done', error_code = $2, error_message = $3, fetch_headers = NULL,
           lease_owner = NULL, lease_expires_at = NULL, updated_at = now(), finished_at = now()
         WHERE id = $1 AND status IN ('queued', 'processing')`,
        [documentId, code, message],
      );
      await settleRunIn(c, runId);
    });
  }

  async releaseLease(documentId: string, workerId: string): Promise<void> {
    await this.pool.query(
      `UPDATE documents SET lease_expires_at = now(), updated_at = now() WHERE id = $1 AND lease_owner = $2`,
      [documentId, workerId],
    );
  }

  async findOrphanedDocuments(limit: number, afterId: string | null): Promise<string[]> {
    const r = await this.pool.query<{ id: string }>(
      `SELECT d.id FROM documents d JOIN runs r ON r.id = d.run_id
       WHERE d.status IN ('queued', 'processing') AND r.status = 'processing'
         AND (d.lease_expires_at IS NULL OR d.lease_expires_at < now())
         AND ($2::text IS NULL OR d.id > $2)
       ORDER BY d.id LIMIT $1`,
      [limit, afterId],
    );
    return r.rows.map((x) => x.id);
  }

  async findUnsettledRuns(limit: number): Promise<string[]> {
    const r = await this.pool.query<{ id: string }>(
      `SELECT r.id FROM runs r WHERE r.status = 'processing'
         AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.run_id = r.id AND d.status IN ('queued', 'processing'))
       LIMIT $1`,
      [limit],
    );
    return r.rows.map((x) => x.id);
  }

  async settleRun(runId: string): Promise<void> {
    await inTransaction(this.pool, (c) => settleRunIn(c, runId));
  }

  async releaseAllLeases(): Promise<void> {
    await this.pool.query(
      `UPDATE documents SET lease_expires_at = now() WHERE status = 'processing' AND lease_expires_at > now()`,
    );
  }

  async isDeleted(documentId: string): Promise<boolean> {
    const r = await this.pool.query<Pick<DocumentRow, 'status'>>(
      'SELECT status FROM documents WHERE id = $1',
      [documentId],
    );
    return !r.rows[0] || r.rows[0].status === 'deleted';
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
