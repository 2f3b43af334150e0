import type { WorkspaceDeletionStore } from '../../domain/stores.js';
import type { Pool } from './db.js';

/**
 * How long a removal of a deleted workspace's storage (by the request that deleted it, or by a
 * reconciler) has before the workers' reconcilers take it over: it failed, or its process died.
 */
export const DELETION_CLAIM_SECONDS = 300;

/**
 * Deleted workspaces and what they left outside the database (migration 0008): recorded by the
 * workspace repository's deletion, handed more by workers (work.ts), removed by workspaces/workspaces.ts.
 */
export class PgWorkspaceDeletionRepository implements WorkspaceDeletionStore {
  constructor(private readonly pool: Pool) {}

  async claimDeletion(workspaceId: string): Promise<number | undefined> {
    const r = await this.pool.query<{ generation: number }>(
      `UPDATE workspace_deletions SET retry_after = now() + make_interval(secs => $2)
        WHERE workspace_id = $1 RETURNING generation`,
      [workspaceId, DELETION_CLAIM_SECONDS],
    );
    return r.rows[0]?.generation;
  }

  async claimDueDeletions(limit: number): Promise<{ workspaceId: string; generation: number }[]> {
    const r = await this.pool.query<{ workspace_id: string; generation: number }>(
      `UPDATE workspace_deletions SET retry_after = now() + make_interval(secs => $2)
        WHERE workspace_id IN (SELECT workspace_id FROM workspace_deletions WHERE retry_after <= now()
                                ORDER BY retry_after LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING workspace_id, generation`,
      [limit, DELETION_CLAIM_SECONDS],
    );
    return r.rows.map((row) => ({ workspaceId: row.workspace_id, generation: row.generation }));
  }

  async objectsToDelete(workspaceId: string, limit: number): Promise<string[]> {
    const r = await this.pool.query<{ key: string }>(
      'SELECT key FROM object_deletions WHERE workspace_id = $1 ORDER BY key LIMIT $2',
      [workspaceId, limit],
    );
    return r.rows.map((row) => row.key);
  }

  async objectsDeleted(workspaceId: string, keys: string[]): Promise<void> {
    await this.pool.query('DELETE FROM object_deletions WHERE workspace_id = $1 AND key = ANY($2::text[])', [
      workspaceId,
      keys,
    ]);
  }

  async deletionFinished(workspaceId: string, generation: number): Promise<boolean> {
    const r = await this.pool.query(
      `DELETE FROM workspace_deletions
        WHERE workspace_id = $1 AND generation = $2
          AND NOT EXISTS (SELECT 1 FROM object_deletions WHERE workspace_id = $1)`,
      [workspaceId, generation],
    );
    return (r.rowCount ?? 0) > 0;
  }
}
