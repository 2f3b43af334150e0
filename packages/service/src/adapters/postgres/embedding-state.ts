import type { EmbeddingState, EmbeddingStateStore } from '../../domain/ports.js';
import type { Pool } from './db.js';

type Row = { model: string; dimension: number; complete: boolean };

const toState = (r: Row): EmbeddingState => ({
  model: r.model,
  dimension: r.dimension,
  complete: r.complete,
});

/** The `workspace_embeddings` table (migration 0003). */
export class PgEmbeddingStateStore implements EmbeddingStateStore {
  constructor(private readonly pool: Pool) {}

  async getEmbeddingState(workspaceId: string): Promise<EmbeddingState | undefined> {
    const r = await this.pool.query<Row>(
      'SELECT model, dimension, complete FROM workspace_embeddings WHERE workspace_id = $1',
      [workspaceId],
    );
    return r.rows[0] ? toState(r.rows[0]) : undefined;
  }

  async initEmbeddingState(workspaceId: string, state: EmbeddingState): Promise<EmbeddingState> {
    await this.pool.query(
      `INSERT INTO workspace_embeddings (workspace_id, model, dimension, complete) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id) DO NOTHING`,
      [workspaceId, state.model, state.dimension, state.complete],
    );
    return (await this.getEmbeddingState(workspaceId)) ?? state;
  }

  async setEmbeddingState(workspaceId: string, state: EmbeddingState): Promise<void> {
    await this.pool.query(
      `INSERT INTO workspace_embeddings (workspace_id, model, dimension, complete) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id) DO UPDATE
         SET model = EXCLUDED.model, dimension = EXCLUDED.dimension, complete = EXCLUDED.complete, updated_at = now()`,
      [workspaceId, state.model, state.dimension, state.complete],
    );
  }

  async countOtherReadyDocuments(workspaceId: string, exceptDocumentIds: string[]): Promise<number> {
    const r = await this.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM documents WHERE workspace_id = $1 AND status = 'ready' AND id <> ALL($2::text[])`,
      [workspaceId, exceptDocumentIds],
    );
    return Number(r.rows[0]?.n ?? 0);
  }

  async workspacesNeedingEmbeddings(model: string, limit: number): Promise<string[]> {
    const r = await this.pool.query<{ id: string }>(
      `SELECT w.id FROM workspaces w
         LEFT JOIN workspace_embeddings e ON e.workspace_id = w.id
        WHERE (e.workspace_id IS NULL OR e.model <> $1 OR NOT e.complete)
          AND EXISTS (SELECT 1 FROM documents d WHERE d.workspace_id = w.id AND d.status = 'ready')
        ORDER BY w.id LIMIT $2`,
      [model, limit],
    );
    return r.rows.map((x) => x.id);
  }
}
