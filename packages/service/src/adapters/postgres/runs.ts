import type { RunStore } from '../../domain/stores.js';
import type { Audience, DocumentRecord, Run, RunStatus, RunView } from '../../domain/types.js';
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
import { type SqlVisibility, visibilityFor } from './visibility.js';

/** A run's pace is measured over the last minute of its work: recent enough to follow changes. */
const RUN_ACTIVITY_WINDOW_SECONDS = 60;

export const CANCELLED_BEFORE_PROCESSING = 'The run was cancelled before this document was processed.';

/**
 * Completes or fails the run when none of its documents is left to process, and announces it to the
 * account's webhooks. Call inside a transaction that already holds (or may take) the run's row lock.
 *
 * A run that made documents searchable completes only once the index maintenance has folded their
 * rows into the full-text index (`indexed`): rows outside it are scored apart and rank a little
 * differently, so a question asked as the run completed and one asked later got different answers
 * (issue 24). Until then it waits, marked `awaiting_index_since`.
 */
export async function settleRunIn(c: PoolClient, runId: string, indexed = false): Promise<void> {
  const run = await c.query<Pick<RunRow, 'status'>>('SELECT status FROM runs WHERE id = $1 FOR UPDATE', [
    runId,
  ]);
  if (run.rows[0]?.status !== 'processing') return;
  // A sync's run has its documents only once the sync has listed its source and applied the listing.
  const listing = await c.query('SELECT 1 FROM sources WHERE sync_run_id = $1', [runId]);
  if (listing.rowCount) return;
  const s = await c.query<{ pending: number; ok: number; failed: number; ready: number }>(
    `SELECT count(*) FILTER (WHERE status IN ('queued', 'processing')) AS pending,
            count(*) FILTER (WHERE status IN ('ready', 'needs_ocr')) AS ok,
            count(*) FILTER (WHERE status = 'ready') AS ready,
            count(*) FILTER (WHERE status = 'failed') AS failed
     FROM documents WHERE run_id = $1`,
    [runId],
  );
  const { pending, ok, failed, ready } = s.rows[0]!;
  if (pending > 0) return;
  // Only ready documents have rows (one needing OCR has none yet).
  if (Number(ready) > 0 && !indexed) {
    await c.query(
      'UPDATE runs SET awaiting_index_since = coalesce(awaiting_index_since, now()) WHERE id = $1',
      [runId],
    );
    return;
  }
  const status: RunStatus = failed > 0 && ok === 0 ? 'failed' : 'completed';
  const u = await c.query<RunRow>(
    `UPDATE runs SET status = $2, updated_at = now(), finished_at = now(), awaiting_index_since = NULL
     WHERE id = $1 RETURNING *`,
    [runId, status],
  );
  await announceRunIn(c, toRun(u.rows[0]!), (r, a) => runViewOf(c, r, a));
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
  await announceRunIn(c, toRun(u.rows[0]), (x, a) => runViewOf(c, x, a));
}

/**
 * A run with its document counts and failures, read with `q` (the pool, or a transaction's client),
 * over the documents `audience` may see (every one by default: webhooks, the whole account).
 */
export async function runViewOf(q: Queryable, run: Run, audience?: Audience): Promise<RunView> {
  const seen = visibilityFor(audience ?? { accountId: run.accountId }, 2);
  // Documents handed on to a later run count in the state they left in (issue 43).
  const counts = await q.query<StatusCountRow>(
    `SELECT s.status, count(*) AS n FROM (
       SELECT d.status FROM documents d WHERE d.run_id = $1 AND ${seen.document('d')}
       UNION ALL
       SELECT x.status FROM run_departures x JOIN documents d ON d.id = x.document_id
        WHERE x.run_id = $1 AND ${seen.document('d')}) s
     GROUP BY s.status`,
    [run.id, ...seen.params],
  );
  const reprocessedBy = await q.query<{ next_run_id: string; n: number }>(
    `SELECT x.next_run_id, count(*)::int AS n FROM run_departures x JOIN documents d ON d.id = x.document_id
      WHERE x.run_id = $1 AND ${seen.document('d')}
      GROUP BY x.next_run_id ORDER BY min(x.departed_at), x.next_run_id`,
    [run.id, ...seen.params],
  );
  const failures = await q.query<FailureRow>(
    `SELECT d.id, d.filename, d.source_item, d.error_code, d.error_message FROM documents d
     WHERE d.run_id = $1 AND d.status = 'failed' AND ${seen.document('d')} ORDER BY d.created_at, d.id`,
    [run.id, ...seen.params],
  );
  const pace = visibilityFor(audience ?? { accountId: run.accountId }, 3);
  // Processed: finished by a worker (not cancelled or deleted, which finish many at once). The pace
  // window starts at the last resume at the earliest: a minute that was mostly a pause would make the
  // first seconds after Resume look many times slower than they are.
  const activity = await q.query<{
    processed: number;
    recent: number;
    window_seconds: number;
    busy_seconds: number;
  }>(
    `WITH d AS (
       SELECT min(started_at) AS first_started,
              max(finished_at) FILTER (WHERE status IN ('ready', 'needs_ocr', 'failed')) AS last_finished,
              count(*) FILTER (WHERE status IN ('ready', 'needs_ocr', 'failed')) AS processed
       FROM documents d WHERE d.run_id = $1 AND ${pace.document('d')}),
     w AS (
       SELECT greatest(d.first_started, r.resumed_at, now() - make_interval(secs => $2::float8)) AS since
       FROM d, runs r WHERE r.id = $1)
     SELECT d.processed,
            (SELECT count(*) FROM documents x
              WHERE x.run_id = $1 AND x.status IN ('ready', 'needs_ocr', 'failed') AND x.finished_at > w.since
                AND ${pace.document('x')}) AS recent,
            coalesce(extract(epoch FROM now() - w.since)::float8, 0) AS window_seconds,
            coalesce(extract(epoch FROM d.last_finished - d.first_started)::float8, 0) AS busy_seconds
     FROM d, w`,
    [run.id, RUN_ACTIVITY_WINDOW_SECONDS, ...pace.params],
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
    reprocessedBy: reprocessedBy.rows.map((r) => ({ runId: r.next_run_id, documents: r.n })),
  };
}

/**
 * A member sees a run `r` of a workspace it may read when the run brought it something to see, or
 * nothing yet at all (a sync still listing): a run of documents all hidden from it is hidden too.
 */
function runSeen(audience: Audience, vis: SqlVisibility): string {
  if (!audience.member) return 'TRUE';
  // Its documents include those it handed on to later runs.
  return `((NOT EXISTS (SELECT 1 FROM documents x WHERE x.run_id = r.id)
            AND NOT EXISTS (SELECT 1 FROM run_departures g WHERE g.run_id = r.id))
           OR EXISTS (SELECT 1 FROM documents x WHERE x.run_id = r.id AND ${vis.document('x')})
           OR EXISTS (SELECT 1 FROM run_departures g JOIN documents x ON x.id = g.document_id
                       WHERE g.run_id = r.id AND ${vis.document('x')}))`;
}

/** Runs: their state machine (pause, resume, cancel) and how they settle. */
export class PgRunRepository implements RunStore {
  constructor(private readonly pool: Pool) {}

  async getRun(audience: Audience, runId: string): Promise<RunView | undefined> {
    const vis = visibilityFor(audience, 3);
    const r = await this.pool.query<RunRow>(
      `SELECT r.* FROM runs r JOIN workspaces w ON w.id = r.workspace_id
        WHERE r.id = $1 AND r.account_id = $2 AND ${vis.workspace('w')} AND ${runSeen(audience, vis)}`,
      [runId, audience.accountId, ...vis.params],
    );
    return r.rows[0] && runViewOf(this.pool, toRun(r.rows[0]), audience);
  }

  async listRunDocuments(audience: Audience, runId: string): Promise<DocumentRecord[]> {
    const vis = visibilityFor(audience, 3);
    const r = await this.pool.query<DocumentRow>(
      `SELECT d.* FROM documents d JOIN workspaces w ON w.id = d.workspace_id
        WHERE d.run_id = $1 AND d.account_id = $2 AND ${vis.readable('w', 'd')} ORDER BY d.created_at, d.id`,
      [runId, audience.accountId, ...vis.params],
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
        `UPDATE runs SET status = $2, updated_at = now(), finished_at = CASE WHEN $3 THEN now() ELSE NULL END,
           resumed_at = CASE WHEN $2 = 'processing' THEN now() ELSE resumed_at END
         WHERE id = $1 RETURNING *`,
        [runId, to, terminal],
      );
      const changed = toRun(u.rows[0]!);
      // With the run, so that its event (written here too) counts them as cancelled.
      if (to === 'cancelled') await cancelWaitingDocumentsIn(c, runId);
      await announceRunIn(c, changed, (x, a) => runViewOf(c, x, a));
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

  async listRuns(audience: Audience, workspaceId: string, limit: number): Promise<RunView[] | undefined> {
    const vis = visibilityFor(audience, 3);
    const ws = await this.pool.query(
      `SELECT 1 FROM workspaces w WHERE w.id = $1 AND w.account_id = $2 AND ${vis.workspace('w')}`,
      [workspaceId, audience.accountId, ...vis.params],
    );
    if (!ws.rowCount) return undefined;
    const seen = visibilityFor(audience, 3);
    const r = await this.pool.query<RunRow>(
      `SELECT r.* FROM runs r WHERE r.workspace_id = $1 AND ${runSeen(audience, seen)}
        ORDER BY r.created_at DESC, r.id DESC LIMIT $2`,
      [workspaceId, limit, ...seen.params],
    );
    return Promise.all(r.rows.map((row) => runViewOf(this.pool, toRun(row), audience)));
  }

  async reprocessDocuments(
    accountId: string,
    documentIds: string[],
    newRunId: string,
  ): Promise<{ run: RunView; documents: DocumentRecord[] } | undefined> {
    return inTransaction(this.pool, async (c) => {
      const first = await c.query<Pick<DocumentRow, 'workspace_id'>>(
        'SELECT workspace_id FROM documents WHERE id = ANY($1::text[]) AND account_id = $2 LIMIT 1',
        [documentIds, accountId],
      );
      const workspaceId = first.rows[0]?.workspace_id;
      if (!workspaceId) return undefined;
      // The workspace before its documents, FOR SHARE as uploads take it: a deletion under way (which
      // locks it first) either finishes before this or finds the new run to cancel.
      const ws = await c.query('SELECT 1 FROM workspaces WHERE id = $1 FOR SHARE', [workspaceId]);
      if (!ws.rowCount) return undefined;
      const docs = await c.query<Pick<DocumentRow, 'id'>>(
        `SELECT id FROM documents WHERE id = ANY($1::text[]) AND account_id = $2 AND workspace_id = $3
           AND status IN ('cancelled', 'failed')
         ORDER BY id FOR UPDATE`,
        [documentIds, accountId, workspaceId],
      );
      if (docs.rows.length === 0) return undefined;
      const runRow = await c.query<RunRow>(
        `INSERT INTO runs (id, account_id, workspace_id, status, kind)
         VALUES ($1, $2, $3, 'processing', 'reprocess') RETURNING *`,
        [newRunId, accountId, workspaceId],
      );
      // What they leave behind: their old runs keep counting them, and name this one (issue 43).
      await c.query(
        `INSERT INTO run_departures (run_id, document_id, status, error_code, error_message, next_run_id)
         SELECT run_id, id, status, error_code, error_message, $2 FROM documents WHERE id = ANY($1::text[])`,
        [docs.rows.map((d) => d.id), newRunId],
      );
      const moved = await c.query<DocumentRow>(
        `UPDATE documents SET run_id = $2, status = 'queued', stage = 'queued', attempts = 0,
           error_code = NULL, error_message = NULL, page_count = NULL, chunk_count = NULL,
           lease_owner = NULL, lease_expires_at = NULL, started_at = NULL, finished_at = NULL, updated_at = now()
         WHERE id = ANY($1::text[]) RETURNING *`,
        [docs.rows.map((d) => d.id), newRunId],
      );
      const order = new Map(documentIds.map((id, i) => [id, i]));
      const documents = moved.rows
        .map(toDocument)
        .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
      return { run: await runViewOf(c, toRun(runRow.rows[0]!)), documents };
    });
  }
}
