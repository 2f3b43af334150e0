import type { FetchedBytes, RecordedFetch } from '../../domain/stores.js';
import type { RunStatus } from '../../domain/types.js';
import { inTransaction, type Pool } from './db.js';
import { type DocumentRow, toDocument } from './rows.js';
import { settleRunIn } from './runs.js';

/**
 * WorkStore.recordFetched: one statement for a group of documents, their rows locked in id order (as
 * startDocuments does). A synced item's hash is recorded with it where its listing had none (a folder's
 * file, whose listing reads no bytes), so that the item's record says what its document holds.
 */
export async function recordFetched(
  pool: Pool,
  workerId: string,
  documents: FetchedBytes[],
): Promise<Map<string, RecordedFetch>> {
  if (documents.length === 0) return new Map();
  const r = await pool.query<DocumentRow & { run_status: RunStatus }>(
    `WITH v AS (
       SELECT * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[])
         AS v(id, size_bytes, sha256, media_type, filename)
     ), cur AS (
       SELECT d.id FROM documents d
       WHERE d.id IN (SELECT id FROM v) AND d.lease_owner = $1 AND d.status = 'processing'
       ORDER BY d.id FOR UPDATE
     ), d AS (
       UPDATE documents d SET size_bytes = v.size_bytes, sha256 = v.sha256, declared_media_type = v.media_type,
         filename = v.filename, fetch_headers = NULL, stage = 'parsing', updated_at = now()
       FROM v, cur WHERE d.id = v.id AND d.id = cur.id RETURNING d.*
     ), i AS (
       UPDATE source_items si SET content_hash = d.sha256 FROM d
       WHERE si.document_id = d.id AND si.content_hash IS NULL)
     SELECT d.*, r.status AS run_status FROM d JOIN runs r ON r.id = d.run_id`,
    [
      workerId,
      documents.map((f) => f.documentId),
      documents.map((f) => f.sizeBytes),
      documents.map((f) => f.sha256),
      documents.map((f) => f.declaredMediaType),
      documents.map((f) => f.filename),
    ],
  );
  return new Map(r.rows.map((row) => [row.id, { document: toDocument(row), runStatus: row.run_status }]));
}

/**
 * WorkStore.keepIndexedVersion: a synced document re-queued on its file's metadata alone whose bytes
 * turned out the same goes back to the version still indexed, in the run it came from (unless that
 * run is gone); the sync's run, which no longer holds it, settles.
 */
export function keepIndexedVersion(pool: Pool, documentId: string, workerId: string): Promise<boolean> {
  return inTransaction(pool, async (c) => {
    const d = await c.query<{ run_id: string }>('SELECT run_id FROM documents WHERE id = $1', [documentId]);
    const syncRun = d.rows[0]?.run_id;
    if (!syncRun) return false;
    await c.query('SELECT 1 FROM runs WHERE id = $1 FOR UPDATE', [syncRun]);
    // The run it was in before the sync moved it, unless that run is gone (runs are pruned).
    const kept = await c.query<{ run_id: string }>(
      `UPDATE documents d SET status = 'ready', stage = 'done', version = d.version - 1,
           run_id = coalesce((SELECT r.id FROM runs r WHERE r.id = d.indexed_run_id), d.run_id),
           indexed_sha256 = NULL, indexed_run_id = NULL, lease_owner = NULL, lease_expires_at = NULL,
           updated_at = now(), finished_at = now()
         WHERE d.id = $1 AND d.lease_owner = $2 AND d.status = 'processing' AND d.version > 1
           AND d.indexed_sha256 = d.sha256
         RETURNING d.run_id`,
      [documentId, workerId],
    );
    const back = kept.rows[0];
    if (!back) return false;
    await c.query('UPDATE source_items SET version = version - 1 WHERE document_id = $1 AND version > 1', [
      documentId,
    ]);
    await settleRunIn(c, syncRun);
    if (back.run_id !== syncRun) await settleRunIn(c, back.run_id);
    return true;
  });
}
