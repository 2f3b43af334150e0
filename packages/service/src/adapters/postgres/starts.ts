import type { StartOutcome } from '../../domain/stores.js';
import type { DocumentStage, RunStatus } from '../../domain/types.js';
import type { Pool } from './db.js';

/**
 * WorkStore.startDocuments: one statement for a group of documents. Rows are locked in id order, so
 * that two workers starting overlapping sets (a lease taken over) cannot deadlock.
 */
export async function startDocuments(
  pool: Pool,
  documentIds: string[],
  workerId: string,
  stage: DocumentStage,
): Promise<Map<string, StartOutcome>> {
  const r = await pool.query<{ id: string; run_status: RunStatus; attempts: number | null }>(
    `WITH cur AS (
       SELECT d.id, r.status AS run_status FROM documents d JOIN runs r ON r.id = d.run_id
       WHERE d.id = ANY($1::text[]) AND d.lease_owner = $2 AND d.status = 'processing'
       ORDER BY d.id FOR UPDATE OF d
     ), started AS (
       UPDATE documents d SET stage = $3, attempts = d.attempts + 1, started_at = coalesce(d.started_at, now()),
         updated_at = now()
       FROM cur WHERE d.id = cur.id AND cur.run_status = 'processing' RETURNING d.id, d.attempts
     )
     SELECT cur.id, cur.run_status, started.attempts FROM cur LEFT JOIN started ON started.id = cur.id`,
    [documentIds, workerId, stage],
  );
  const out = new Map<string, StartOutcome>(documentIds.map((id) => [id, { held: false }]));
  for (const row of r.rows) {
    out.set(row.id, { held: true, runStatus: row.run_status, attempts: row.attempts ?? 0 });
  }
  return out;
}
