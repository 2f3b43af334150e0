import type { RunStore } from '../../domain/stores.js';
import type { DocumentRecord, Run, RunStatus, RunView } from '../../domain/types.js';
import { inTransaction, type Pool, type PoolClient, type Queryable } from './db.js';
import { announceRunIn } from './outbox.js';
import {
  countsFrom,
  type DocumentRow,
  type FailureRow,
  type RunRow,
  type StatusCountRow,
  toDocument,
  toFailure,
  toRun,
} from './rows.js';

/** A run's pace is measured over the last minute of its work: recent enough to follow changes. */
const RUN_ACTIVITY_WINDOW_SECONDS = 60;

export const CANCELLED_BEFORE_PROCESSING = 'The run was cancelled before this document was processed.';

/**
 * Completes or fails the run when none of its documents is left to process, and announces it to the
 * account's webhooks. Call inside a transaction that already holds (or may take) the run's row lock.
 */
export async function settleRunIn(c: PoolClient, runId: string): Promise<void> {
  const run = await c.query<Pick<RunRow, 'status'>>('SELECT status FROM runs WHERE id = $1 FOR UPDATE', [
    runId,
  ]);
  if (run.rows[0]?.status !== 'processing') return;
  // A sync's run has its documents only once the sync has listed its source and applied the listing.
  const listing = await c.query('SELECT 1 FROM sources WHERE sync_run_id = $1', [runId]);
  if (listing.rowCount) return;
  const s = await c.query<{ pending: number; ok: number; failed: number }>(
    `SELECT count(*) FILTER (WHERE status IN ('queued', 'processing')) AS pending,
            count(*) FILTER (WHERE status IN ('ready', 'needs_ocr')) AS ok,
            count(*) FILTER (WHERE status = 'failed') AS failed
     FROM documents WHERE run_id = $1`,
    [runId],
  );
  const { pending, ok, failed } = s.rows[0]!;
  if (pending > 0) return;
  const status: RunStatus = failed > 0 && ok === 0 ? 'failed' : 'completed';
  const u = await c.query<RunRow>(
    'UPDATE runs SET status = $2, updated_at = now(), finished_at = now() WHERE id = $1 RETURNING *',
    [runId, status],
  );
  await announceRunIn(c, toRun(u.rows[0]!), (r) => runViewOf(c, r));
}

/** The documents of a cancelled run that had not started are cancelled with it. */
async function cancelWaitingDocumentsIn(c: PoolClient, runId: string): Promise<void> {
  await c.query(
    `UPDATE documents SET status = 'cancelled', stage = 'done', error_code = 'cancelled',
       error_message = $2, fetch_headers = NULL, updated_at = now(), finished_at = now()
     WHERE run_id = $1 AND status = 'queued'`,
    [runId, CANCELLED_BEFORE_PROCESSING],
  );
}

/**
 * Cancels a run in progress as POST /v1/runs/{id}/cancel does (its waiting documents cancelled, its
 * `run.cancelled` event written), inside a transaction that holds its row lock: a workspace's runs
 * before the workspace is deleted.
 */
export async function cancelRunIn(c: PoolClient, runId: string): Promise<void> {
  const u = await c.query<RunRow>(
    `UPDATE runs SET status = 'cancelled', updated_at = now(), finished_at = now()
      WHERE id = $1 AND status IN ('processing', 'paused') RETURNING *`,
    [runId],
  );
  if (!u.rows[0]) return;
  await cancelWaitingDocumentsIn(c, runId);
  await announceRunIn(c, toRun(u.rows[0]), (x) => runViewOf(c, x));
}

/** A run with its document counts and failures, read with `q` (the pool, or a transaction's client). */
export async function runViewOf(q: Queryable, run: Run): Promise<RunView> {
  const counts = await q.query<StatusCountRow>(
    'SELECT status, count(*) AS n FROM documents WHERE run_id = $1 GROUP BY status',
    [run.id],
  );
  const failures = await q.query<FailureRow>(
    `SELECT id, filename, source_item, error_code, error_message FROM documents
     WHERE run_id = $1 AND status = 'failed' ORDER BY created_at, id`,
    [run.id],
  );
  // Processed: finished by a worker (not cancelled or deleted, which finish many at once).
  const activity = await q.query<{
    processed: number;
    recent: number;
    window_seconds: number;
    busy_seconds: number;
  }>(
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
    [run.id, RUN_ACTIVITY_WINDOW_SECONDS],
  );
  const a = activity.rows[0]!;
  return {
    ...run,
    counts: countsFrom(counts.rows),
    activity: {
      processed: a.processed,
      busySeconds: Math.max(0, a.busy_seconds),
      recentlyProcessed: a.recent,
      windowSeconds: Math.max(0, a.window_seconds),
    },
    failures: failures.rows.map(toFailure),
  };
}

/** Runs: their state machine (pause, resume, cancel) and how they settle. */
export class PgRunRepository implements RunStore {
  constructor(private readonly pool: Pool) {}

  async getRun(accountId: string, runId: string): Promise<RunView | undefined> {
    const r = await this.pool.query<RunRow>('SELECT * FROM runs WHERE id = $1 AND account_id = $2', [
      runId,
      accountId,
    ]);
    return r.rows[0] && runViewOf(this.pool, toRun(r.rows[0]));
  }

  async listRunDocuments(runId: string): Promise<DocumentRecord[]> {
    const r = await this.pool.query<DocumentRow>(
      'SELECT * FROM documents WHERE run_id = $1 ORDER BY created_at, id',
      [runId],
    );
    return r.rows.map(toDocument);
  }

  async transitionRun(
    accountId: string,
    runId: string,
    from: RunStatus[],
    to: RunStatus,
  ): Promise<{ changed: boolean; run: Run | undefined }> {
    return inTransaction(this.pool, async (c) => {
      const r = await c.query<RunRow>('SELECT * FROM runs WHERE id = $1 AND account_id = $2 FOR UPDATE', [
        runId,
        accountId,
      ]);
      if (!r.rows[0]) return { changed: false, run: undefined };
      const run = toRun(r.rows[0]);
      if (!from.includes(run.status)) return { changed: false, run };
      const terminal = to === 'cancelled' || to === 'completed' || to === 'failed';
      const u = await c.query<RunRow>(
        `UPDATE runs SET status = $2, updated_at = now(), finished_at = CASE WHEN $3 THEN now() ELSE NULL END
         WHERE id = $1 RETURNING *`,
        [runId, to, terminal],
      );
      const changed = toRun(u.rows[0]!);
      // With the run, so that its event (written here too) counts them as cancelled.
      if (to === 'cancelled') await cancelWaitingDocumentsIn(c, runId);
      await announceRunIn(c, changed, (x) => runViewOf(c, x));
      return { changed: true, run: changed };
    });
  }

  async queuedDocumentIds(runId: string): Promise<string[]> {
    const r = await this.pool.query<{ id: string }>(
      `SELECT id FROM documents WHERE run_id = $1 AND status IN ('queued', 'processing') ORDER BY created_at, id`,
      [runId],
    );
    return r.rows.map((x) => x.id);
  }

  async settleRun(runId: string): Promise<void> {
    await inTransaction(this.pool, (c) => settleRunIn(c, runId));
  }
}
