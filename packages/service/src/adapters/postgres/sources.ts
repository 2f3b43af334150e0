// Over 400 lines: a source's records and its sync's one transaction (documents added, re-queued and
// deleted, items recorded, runs settled) share their row types and locking order; split, each half
// would need the other's.
import type { SecretStore } from '../../domain/stores.js';
import type { DocumentRecord, RunView, SyncChanges } from '../../domain/types.js';
import type { PreviousItem, SourceRecord, SyncFailureCode } from '../../sources/model.js';
import { sourceCredentialsContext } from '../../sources/model.js';
import type { SyncPlan } from '../../sources/plan.js';
import type {
  AppliedSync,
  ClaimedSync,
  NewSource,
  SourceChanges,
  SourceStore,
  SyncStore,
} from '../../sources/store.js';
import { inTransaction, type Pool, type PoolClient } from './db.js';
import { announceRunIn } from './outbox.js';
import { type DocumentRow, grantsOf, type RunRow, toDocument, toRun } from './rows.js';
import { runViewOf, settleRunIn } from './runs.js';

interface SourceRow {
  id: string;
  account_id: string;
  workspace_id: string;
  type: SourceRecord['type'];
  name: string | null;
  settings: Record<string, unknown>;
  credentials: string | null;
  interval_seconds: number | null;
  max_delete_share: number;
  created_at: Date;
  updated_at: Date;
  next_sync_at: Date | null;
  last_run_id: string | null;
  last_sync_at: Date | null;
  sync_run_id: string | null;
  sync_force: boolean;
  sync_owner: string | null;
  sync_lease_until: Date | null;
  sync_attempts: number;
  failure_code: string | null;
  failure_streak: number;
  access_users: string[] | null;
  access_groups: string[] | null;
}

/** Scheduled syncs failing the same way in a row: each waits twice as long, and the fifth stops the schedule. */
export const MAX_FAILURE_STREAK = 5;

interface SourceItemRow {
  item_key: string;
  document_id: string;
  etag: string | null;
  size_bytes: number | null;
  mtime_ms: number | null;
  last_modified: string | null;
  content_hash: string | null;
  links: string[] | null;
  version: number;
  document_status: string;
}

/** The source with its last sync's run (as JSON in `last_run`). */
const SELECT_SOURCE = `
  SELECT s.*, a.name AS account_name, row_to_json(lr.*) AS last_run
  FROM sources s JOIN accounts a ON a.id = s.account_id LEFT JOIN runs lr ON lr.id = s.last_run_id`;

type SourceRowWithRun = SourceRow & {
  account_name: string;
  last_run:
    | (Omit<RunRow, 'created_at' | 'updated_at' | 'finished_at'> & {
        created_at: string;
        updated_at: string;
        finished_at: string | null;
      })
    | null;
};

function toSource(r: SourceRowWithRun): SourceRecord {
  const lr = r.last_run;
  return {
    id: r.id,
    accountId: r.account_id,
    accountName: r.account_name,
    workspaceId: r.workspace_id,
    type: r.type,
    name: r.name,
    settings: r.settings,
    credentials: r.credentials,
    intervalSeconds: r.interval_seconds,
    maxDeleteShare: r.max_delete_share,
    access: grantsOf(r.access_users ?? null, r.access_groups ?? null),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    nextSyncAt: r.next_sync_at,
    lastRun: lr
      ? toRun({
          ...lr,
          created_at: new Date(lr.created_at),
          updated_at: new Date(lr.updated_at),
          finished_at: lr.finished_at ? new Date(lr.finished_at) : null,
        })
      : null,
    lastSyncAt: r.last_sync_at,
    syncRunId: r.sync_run_id,
    consecutiveFailures: r.failure_streak,
  };
}

/**
 * Ends the source's sync: forgets the lease, records the run as its last and schedules the next one.
 * A failure (`failedWith`) with the same code as the one before lengthens the streak: the next
 * scheduled sync waits 2^(streak-1) intervals, and after MAX_FAILURE_STREAK none is scheduled.
 */
async function endSyncIn(c: PoolClient, sourceId: string, runId: string, failedWith?: string): Promise<void> {
  await c.query(
    `WITH s AS (
       SELECT id, CASE WHEN $3::text IS NULL THEN 0
                       WHEN failure_code = $3 THEN failure_streak + 1 ELSE 1 END AS streak
       FROM sources WHERE id = $1)
     UPDATE sources SET sync_run_id = NULL, sync_owner = NULL, sync_lease_until = NULL, sync_force = false,
       sync_attempts = 0, last_run_id = $2, last_sync_at = now(), failure_code = $3, failure_streak = s.streak,
       next_sync_at = CASE WHEN interval_seconds IS NULL OR s.streak >= $4 THEN NULL
         ELSE now() + make_interval(secs => interval_seconds * power(2, greatest(s.streak - 1, 0))) END
     FROM s WHERE sources.id = s.id`,
    [sourceId, runId, failedWith ?? null, MAX_FAILURE_STREAK],
  );
}

/** Sources: what their owners manage (SourceStore) and what workers sync (SyncStore). */
export class PgSourceRepository implements SourceStore, SyncStore, SecretStore {
  constructor(private readonly pool: Pool) {}

  private async read(id: string, accountId?: string): Promise<SourceRecord | undefined> {
    const r = await this.pool.query<SourceRowWithRun>(
      `${SELECT_SOURCE} WHERE s.id = $1 AND ($2::text IS NULL OR s.account_id = $2)`,
      [id, accountId ?? null],
    );
    return r.rows[0] && toSource(r.rows[0]);
  }

  async insertSource(s: NewSource): Promise<SourceRecord | undefined> {
    const r = await this.pool.query<{ id: string }>(
      `INSERT INTO sources (id, account_id, workspace_id, type, name, settings, credentials, interval_seconds,
                            max_delete_share, next_sync_at, access_users, access_groups)
       SELECT $1, $2, w.id, $4, $5, $6, $7, $8::integer, $9,
              CASE WHEN $8::integer IS NULL THEN NULL ELSE now() END, $10::text[], $11::text[]
       FROM workspaces w WHERE w.id = $3 AND w.account_id = $2
       RETURNING id`,
      [
        s.id,
        s.accountId,
        s.workspaceId,
        s.type,
        s.name,
        JSON.stringify(s.settings),
        s.credentials,
        s.intervalSeconds,
        s.maxDeleteShare,
        s.access ? [...s.access.users] : null,
        s.access ? [...s.access.groups] : null,
      ],
    );
    return r.rows[0] && this.read(s.id);
  }

  async listSources(accountId: string, workspaceId: string): Promise<SourceRecord[]> {
    const r = await this.pool.query<SourceRowWithRun>(
      `${SELECT_SOURCE} WHERE s.workspace_id = $1 AND s.account_id = $2 ORDER BY s.created_at, s.id`,
      [workspaceId, accountId],
    );
    return r.rows.map(toSource);
  }

  getSource(accountId: string, sourceId: string): Promise<SourceRecord | undefined> {
    return this.read(sourceId, accountId);
  }

  async updateSource(
    accountId: string,
    sourceId: string,
    changes: SourceChanges,
  ): Promise<SourceRecord | undefined> {
    const sets: string[] = [];
    const values: unknown[] = [sourceId, accountId];
    const set = (column: string, value: unknown) => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    if (changes.name !== undefined) set('name', changes.name);
    if (changes.settings !== undefined) set('settings', JSON.stringify(changes.settings));
    if (changes.credentials !== undefined) set('credentials', changes.credentials);
    if (changes.maxDeleteShare !== undefined) set('max_delete_share', changes.maxDeleteShare);
    // What the owner changed may be what made the syncs fail: the count starts again.
    if (changes.settings !== undefined || changes.credentials !== undefined) {
      sets.push('failure_streak = 0', 'failure_code = NULL');
      // A schedule that failures had stopped starts again.
      if (changes.intervalSeconds === undefined)
        sets.push(
          'next_sync_at = CASE WHEN interval_seconds IS NULL THEN NULL ELSE coalesce(next_sync_at, now()) END',
        );
    }
    if (changes.intervalSeconds !== undefined) {
      set('interval_seconds', changes.intervalSeconds);
      if (changes.settings === undefined && changes.credentials === undefined)
        sets.push('failure_streak = 0', 'failure_code = NULL');
      // A new interval counts from the last sync (or from now when there was none).
      sets.push(
        `next_sync_at = CASE WHEN $${values.length}::integer IS NULL THEN NULL
           ELSE coalesce(last_sync_at, now()) + make_interval(secs => $${values.length}::integer) END`,
      );
    }
    if (changes.access !== undefined) {
      set('access_users', changes.access ? [...changes.access.users] : null);
      set('access_groups', changes.access ? [...changes.access.groups] : null);
    }
    const updated = await inTransaction(this.pool, async (c) => {
      const r = await c.query(
        `UPDATE sources SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 AND account_id = $2`,
        values,
      );
      // The documents it brought take its new access in the same transaction: the next search sees it.
      if (r.rowCount && changes.access !== undefined)
        await c.query(
          `UPDATE documents SET access_users = s.access_users, access_groups = s.access_groups, updated_at = now()
             FROM sources s WHERE s.id = $1 AND documents.source_id = s.id AND documents.status <> 'deleted'`,
          [sourceId],
        );
      return (r.rowCount ?? 0) > 0;
    });
    return updated ? this.read(sourceId) : undefined;
  }

  async deleteSource(
    accountId: string,
    sourceId: string,
  ): Promise<{ source: SourceRecord; documents: DocumentRecord[] } | undefined> {
    const source = await this.read(sourceId, accountId);
    if (!source) return undefined;
    return inTransaction(this.pool, async (c) => {
      const locked = await c.query<SourceRow>('SELECT * FROM sources WHERE id = $1 FOR UPDATE', [sourceId]);
      if (!locked.rows[0]) return undefined;
      const sync = locked.rows[0].sync_run_id;
      if (sync) await this.failRunIn(c, sync, 'sync_failed', 'The source was deleted before this sync ran.');
      const docs = await c.query<DocumentRow>(
        `UPDATE documents SET status = 'deleted', stage = 'done', lease_owner = NULL, lease_expires_at = NULL,
           updated_at = now(), finished_at = coalesce(finished_at, now())
         WHERE source_id = $1 AND status <> 'deleted' RETURNING *`,
        [sourceId],
      );
      const documents = docs.rows.map(toDocument);
      for (const runId of new Set(documents.map((d) => d.runId))) await settleRunIn(c, runId);
      await c.query('DELETE FROM sources WHERE id = $1', [sourceId]);
      return { source, documents };
    });
  }

  async requestSync(
    accountId: string,
    sourceId: string,
    options: { runId: string; force: boolean },
  ): Promise<{ run: RunView; created: boolean } | undefined> {
    return inTransaction(this.pool, async (c) => {
      const s = await c.query<SourceRow>(
        'SELECT * FROM sources WHERE id = $1 AND account_id = $2 FOR UPDATE',
        [sourceId, accountId],
      );
      const source = s.rows[0];
      if (!source) return undefined;
      if (source.sync_run_id) {
        if (options.force) await c.query('UPDATE sources SET sync_force = true WHERE id = $1', [sourceId]);
        const r = await c.query<RunRow>('SELECT * FROM runs WHERE id = $1', [source.sync_run_id]);
        return { run: await runViewOf(c, toRun(r.rows[0]!)), created: false };
      }
      const run = await this.startSyncIn(c, source, options.runId, options.force);
      return { run: await runViewOf(c, run), created: true };
    });
  }

  /** A new run for the source's sync, recorded as the sync under way. */
  private async startSyncIn(c: PoolClient, source: SourceRow, runId: string, force: boolean) {
    const r = await c.query<RunRow>(
      `INSERT INTO runs (id, account_id, workspace_id, status, kind, source_id)
       VALUES ($1, $2, $3, 'processing', 'sync', $4) RETURNING *`,
      [runId, source.account_id, source.workspace_id, source.id],
    );
    await c.query(
      `UPDATE sources SET sync_run_id = $2, sync_force = $3, sync_owner = NULL, sync_lease_until = NULL,
         sync_attempts = 0
       WHERE id = $1`,
      [source.id, runId, force],
    );
    return toRun(r.rows[0]!);
  }

  /** Fails a sync's run as a whole (it changed nothing), with its event, unless it has ended. */
  private async failRunIn(c: PoolClient, runId: string, code: SyncFailureCode, message: string) {
    const u = await c.query<RunRow>(
      `UPDATE runs SET status = 'failed', error_code = $2, error_message = $3, updated_at = now(), finished_at = now()
       WHERE id = $1 AND status IN ('processing', 'paused') RETURNING *`,
      [runId, code, message],
    );
    if (u.rows[0]) await announceRunIn(c, toRun(u.rows[0]), (x, a) => runViewOf(c, x, a));
  }

  async dueSyncs(limit: number, newRunId: () => string): Promise<string[]> {
    await inTransaction(this.pool, async (c) => {
      const due = await c.query<SourceRow>(
        `SELECT * FROM sources WHERE next_sync_at <= now() AND sync_run_id IS NULL
         ORDER BY next_sync_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      for (const source of due.rows) await this.startSyncIn(c, source, newRunId(), false);
    });
    const r = await this.pool.query<{ id: string }>(
      `SELECT id FROM sources WHERE sync_run_id IS NOT NULL
         AND (sync_lease_until IS NULL OR sync_lease_until < now()) LIMIT $1`,
      [limit],
    );
    return r.rows.map((x) => x.id);
  }

  async claimSync(
    sourceId: string,
    workerId: string,
    leaseSeconds: number,
    maxAttempts = Number.POSITIVE_INFINITY,
  ): Promise<ClaimedSync | undefined> {
    const row = await inTransaction(this.pool, async (c) => {
      const claimed = await c.query<SourceRow & { run_status: string }>(
        `UPDATE sources s SET sync_owner = $2, sync_lease_until = now() + make_interval(secs => $3),
           sync_attempts = s.sync_attempts + CASE WHEN s.sync_owner IS DISTINCT FROM $2 THEN 1 ELSE 0 END
         FROM runs r
         WHERE s.id = $1 AND r.id = s.sync_run_id
           AND (s.sync_owner IS NULL OR s.sync_lease_until < now() OR s.sync_owner = $2)
         RETURNING s.*, r.status AS run_status`,
        [sourceId, workerId, leaseSeconds],
      );
      const taken = claimed.rows[0];
      if (!taken || taken.sync_attempts <= maxAttempts) return taken;
      // Every worker that took this sync up before stopped without finishing it: whatever the
      // source serves takes its worker down. Listing it once more would only do that again.
      const code = 'sync_failed';
      await this.failRunIn(
        c,
        taken.sync_run_id!,
        code,
        `The listing was started ${maxAttempts} times and never finished: each time the worker listing the source stopped (killed, or out of memory). It is not tried again until the next sync.`,
      );
      await endSyncIn(c, sourceId, taken.sync_run_id!, code);
      return undefined;
    });
    if (!row) return undefined;
    const items = await this.pool.query<SourceItemRow>(
      `SELECT i.*, d.status AS document_status FROM source_items i JOIN documents d ON d.id = i.document_id
       WHERE i.source_id = $1`,
      [sourceId],
    );
    const previous: PreviousItem[] = items.rows.map((i) => ({
      key: i.item_key,
      documentId: i.document_id,
      version: i.version,
      documentStatus: i.document_status,
      etag: i.etag,
      sizeBytes: i.size_bytes,
      mtimeMs: i.mtime_ms,
      lastModified: i.last_modified,
      contentHash: i.content_hash,
      links: i.links,
    }));
    return {
      source: (await this.read(sourceId))!,
      runId: row.sync_run_id!,
      runStatus: row.run_status,
      force: row.sync_force,
      previous,
    };
  }

  async renewSync(sourceId: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE sources SET sync_lease_until = now() + make_interval(secs => $3)
       WHERE id = $1 AND sync_owner = $2 AND sync_run_id IS NOT NULL`,
      [sourceId, workerId, leaseSeconds],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async failSync(sourceId: string, workerId: string, code: SyncFailureCode, message: string): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      const s = await c.query<SourceRow>(
        'SELECT * FROM sources WHERE id = $1 AND sync_owner = $2 AND sync_run_id IS NOT NULL FOR UPDATE',
        [sourceId, workerId],
      );
      const runId = s.rows[0]?.sync_run_id;
      if (!runId) return;
      await this.failRunIn(c, runId, code, message);
      await endSyncIn(c, sourceId, runId, code);
    });
  }

  async applySync(
    sourceId: string,
    workerId: string,
    plan: SyncPlan,
    newDocumentId: () => string,
  ): Promise<AppliedSync | undefined> {
    return inTransaction(this.pool, async (c) => {
      const s = await c.query<SourceRow>(
        'SELECT * FROM sources WHERE id = $1 AND sync_owner = $2 AND sync_run_id IS NOT NULL FOR UPDATE',
        [sourceId, workerId],
      );
      const source = s.rows[0];
      if (!source) return undefined;
      const runId = source.sync_run_id!;
      const run = await c.query<RunRow>('SELECT * FROM runs WHERE id = $1 FOR UPDATE', [runId]);
      if (run.rows[0]?.status === 'cancelled') {
        await endSyncIn(c, sourceId, runId);
        return { enqueue: [], removed: [] };
      }
      const enqueue: string[] = [];
      const touchedRuns = new Set<string>();

      // New items: a document each, queued in the sync's run; its bytes are read when it starts.
      if (plan.added.length > 0) {
        const ids = plan.added.map(() => newDocumentId());
        await c.query(
          `INSERT INTO documents (id, account_id, workspace_id, run_id, filename, source_url, size_bytes, storage_key,
                                  status, source_id, source_item, version, access_users, access_groups)
           SELECT u.id, $2, $3, $4, u.filename, u.url, u.size, 'raw/' || u.id, 'queued', $5, u.key, 1,
                  $10::text[], $11::text[]
           FROM unnest($1::text[], $6::text[], $7::text[], $8::bigint[], $9::text[]) AS u(id, filename, url, size, key)`,
          [
            ids,
            source.account_id,
            source.workspace_id,
            runId,
            sourceId,
            plan.added.map((i) => i.filename),
            plan.added.map((i) => i.url),
            plan.added.map((i) => i.fingerprint.sizeBytes ?? null),
            plan.added.map((i) => i.key),
            source.access_users ?? null,
            source.access_users === null ? null : (source.access_groups ?? []),
          ],
        );
        await this.recordItems(
          c,
          sourceId,
          plan.added.map((item, n) => ({ item, documentId: ids[n]! })),
          'insert',
        );
        enqueue.push(...ids);
      }

      // Changed items: the same document, a new version, back in the queue of this run. Its chunks
      // stay searchable until the new version's replace them (one index commit).
      if (plan.changed.length > 0) {
        const moved = await c.query<{ run_id: string; id: string }>(
          // An item listed by its metadata alone keeps the hash and run of the version still indexed:
          // its worker puts it back as it was when the bytes turn out the same (keepIndexedVersion).
          `WITH old AS (SELECT id, run_id, status, sha256 FROM documents WHERE id = ANY($1::text[]) FOR UPDATE)
           UPDATE documents d SET run_id = $2, status = 'queued', stage = 'queued', version = d.version + 1,
             filename = u.filename, source_url = u.url, size_bytes = u.size, sha256 = NULL, attempts = 0,
             error_code = NULL, error_message = NULL, lease_owner = NULL, lease_expires_at = NULL,
             started_at = NULL, finished_at = NULL, updated_at = now(),
             indexed_sha256 = CASE WHEN u.verify AND old.status = 'ready' THEN old.sha256 END,
             indexed_run_id = CASE WHEN u.verify AND old.status = 'ready' THEN old.run_id END
           FROM unnest($1::text[], $3::text[], $4::text[], $5::bigint[], $6::boolean[])
                  AS u(id, filename, url, size, verify), old
           WHERE d.id = u.id AND old.id = u.id AND d.status <> 'deleted'
           RETURNING old.run_id, d.id`,
          [
            plan.changed.map((x) => x.documentId),
            runId,
            plan.changed.map((x) => x.item.filename),
            plan.changed.map((x) => x.item.url),
            plan.changed.map((x) => x.item.fingerprint.sizeBytes ?? null),
            plan.changed.map((x) => x.unverified),
          ],
        );
        for (const m of moved.rows) {
          if (m.run_id !== runId) touchedRuns.add(m.run_id);
          enqueue.push(m.id);
        }
        await this.recordItems(c, sourceId, plan.changed, 'version');
      }
      if (plan.refreshed.length > 0) await this.recordItems(c, sourceId, plan.refreshed, 'update');

      // Gone from the source: deleted from the workspace (out of search at once).
      let removed: DocumentRecord[] = [];
      if (plan.removed.length > 0) {
        const r = await c.query<DocumentRow & { previous_run_id: string }>(
          // Into this sync's run, which did the deleting: its counts say `deleted` (as a changed
          // item's document moves to the run that processes it again).
          `WITH old AS (SELECT id, run_id FROM documents WHERE id = ANY($1::text[]) AND status <> 'deleted' FOR UPDATE)
           UPDATE documents d SET status = 'deleted', stage = 'done', lease_owner = NULL, lease_expires_at = NULL,
             run_id = $2, updated_at = now(), finished_at = coalesce(d.finished_at, now())
           FROM old WHERE d.id = old.id RETURNING d.*, old.run_id AS previous_run_id`,
          [plan.removed.map((p) => p.documentId), runId],
        );
        removed = r.rows.map(toDocument);
        for (const row of r.rows) if (row.previous_run_id !== runId) touchedRuns.add(row.previous_run_id);
        await c.query('DELETE FROM source_items WHERE source_id = $1 AND item_key = ANY($2::text[])', [
          sourceId,
          plan.removed.map((p) => p.key),
        ]);
      }
      // What this sync found, kept on its run: its documents may move on to later runs, this stays.
      const changes: SyncChanges = {
        added: plan.added.length,
        changed: plan.changed.length,
        deleted: removed.length,
        unchanged: plan.unchanged + plan.refreshed.length,
      };
      await c.query('UPDATE runs SET skipped = $2::jsonb, changes = $3::jsonb WHERE id = $1', [
        runId,
        plan.skipped ? JSON.stringify(plan.skipped) : null,
        JSON.stringify(changes),
      ]);
      await endSyncIn(c, sourceId, runId);
      // Earlier runs that lost their last unfinished documents to this sync finish now; this sync's run
      // completes at once when it has nothing to process.
      for (const id of touchedRuns) await settleRunIn(c, id);
      await settleRunIn(c, runId);
      return { enqueue, removed };
    });
  }

  /** Records items as listed: new ones, changed ones (a version more) or unchanged ones refreshed. */
  private async recordItems(
    c: PoolClient,
    sourceId: string,
    items: { item: SyncPlan['added'][number]; documentId: string }[],
    mode: 'insert' | 'version' | 'update',
  ): Promise<void> {
    const version =
      mode === 'insert' ? '1' : mode === 'version' ? 'source_items.version + 1' : 'source_items.version';
    await c.query(
      `INSERT INTO source_items AS si (source_id, item_key, document_id, etag, size_bytes, mtime_ms, last_modified,
                                       content_hash, links, version)
       SELECT $1, u.key, u.doc, u.etag, u.size, u.mtime, u.lm, u.hash, u.links::jsonb, 1
       FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::float8[], $7::text[], $8::text[], $9::text[])
            AS u(key, doc, etag, size, mtime, lm, hash, links)
       ON CONFLICT (source_id, item_key) DO UPDATE SET document_id = excluded.document_id, etag = excluded.etag,
         size_bytes = excluded.size_bytes, mtime_ms = excluded.mtime_ms, last_modified = excluded.last_modified,
         content_hash = excluded.content_hash, links = excluded.links, synced_at = now(),
         version = ${version.replace(/source_items/g, 'si')}`,
      [
        sourceId,
        items.map((x) => x.item.key),
        items.map((x) => x.documentId),
        items.map((x) => x.item.fingerprint.etag ?? null),
        items.map((x) => x.item.fingerprint.sizeBytes ?? null),
        items.map((x) => x.item.fingerprint.mtimeMs ?? null),
        items.map((x) => x.item.fingerprint.lastModified ?? null),
        items.map((x) => x.item.fingerprint.contentHash ?? null),
        items.map((x) => (x.item.links ? JSON.stringify(x.item.links) : null)),
      ],
    );
  }

  sourceById(sourceId: string): Promise<SourceRecord | undefined> {
    return this.read(sourceId);
  }

  async encryptedValues(): Promise<{ id: string; context: string; value: string }[]> {
    const r = await this.pool.query<{ id: string; credentials: string }>(
      'SELECT id, credentials FROM sources WHERE credentials IS NOT NULL',
    );
    return r.rows.map((x) => ({ id: x.id, context: sourceCredentialsContext(x.id), value: x.credentials }));
  }

  async replaceEncryptedValue(sourceId: string, value: string): Promise<void> {
    await this.pool.query('UPDATE sources SET credentials = $2 WHERE id = $1 AND credentials IS NOT NULL', [
      sourceId,
      value,
    ]);
  }
}
