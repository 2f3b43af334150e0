import { fetchHeadersContext } from '../../domain/secrets.js';
import type { DocumentOrigin, DocumentStore, SecretStore } from '../../domain/stores.js';
import type { Audience, DocumentAccess, DocumentCounts, DocumentRecord } from '../../domain/types.js';
import { inTransaction, type Pool } from './db.js';
import { countsFrom, type DocumentRow, type StatusCountRow, toDocument } from './rows.js';
import { settleRunIn } from './runs.js';
import { visibilityFor } from './visibility.js';

/** Documents as their owners read and delete them, and their encrypted fetch headers (key rotation). */
export class PgDocumentRepository implements DocumentStore, SecretStore {
  constructor(private readonly pool: Pool) {}

  async getDocument(audience: Audience, documentId: string): Promise<DocumentRecord | undefined> {
    const vis = visibilityFor(audience, 3);
    const r = await this.pool.query<DocumentRow>(
      `SELECT d.* FROM documents d JOIN workspaces w ON w.id = d.workspace_id
        WHERE d.id = $1 AND d.account_id = $2 AND d.status <> 'deleted' AND ${vis.readable('w', 'd')}`,
      [documentId, audience.accountId, ...vis.params],
    );
    return r.rows[0] && toDocument(r.rows[0]);
  }

  async listDocuments(audience: Audience, workspaceId: string): Promise<DocumentRecord[]> {
    const vis = visibilityFor(audience, 3);
    const r = await this.pool.query<DocumentRow>(
      `SELECT d.* FROM documents d JOIN workspaces w ON w.id = d.workspace_id
        WHERE d.workspace_id = $1 AND d.account_id = $2 AND d.status <> 'deleted' AND ${vis.readable('w', 'd')}
       ORDER BY d.created_at, d.id`,
      [workspaceId, audience.accountId, ...vis.params],
    );
    return r.rows.map(toDocument);
  }

  async setAccess(
    accountId: string,
    documentId: string,
    access: DocumentAccess,
  ): Promise<DocumentRecord | undefined> {
    const r = await this.pool.query<DocumentRow>(
      `UPDATE documents SET access_users = $3::text[], access_groups = $4::text[], updated_at = now()
        WHERE id = $1 AND account_id = $2 AND status <> 'deleted' RETURNING *`,
      [documentId, accountId, access ? [...access.users] : null, access ? [...access.groups] : null],
    );
    return r.rows[0] && toDocument(r.rows[0]);
  }

  async markDeleted(accountId: string, documentId: string): Promise<DocumentRecord | undefined> {
    return inTransaction(this.pool, async (c) => {
      const r = await c.query<DocumentRow>(
        `UPDATE documents SET status = 'deleted', stage = 'done', lease_owner = NULL, lease_expires_at = NULL, fetch_headers = NULL,
           updated_at = now(), finished_at = coalesce(finished_at, now())
         WHERE id = $1 AND account_id = $2 AND status <> 'deleted' RETURNING *`,
        [documentId, accountId],
      );
      if (!r.rows[0]) return undefined;
      const doc = toDocument(r.rows[0]);
      // Deleting the last unfinished document of a run finishes the run.
      await settleRunIn(c, doc.runId);
      return doc;
    });
  }

  async liveDocuments(workspaceId: string, documentIds: string[]): Promise<Map<string, DocumentOrigin>> {
    if (documentIds.length === 0) return new Map();
    const r = await this.pool.query<{
      id: string;
      source_id: string | null;
      source_item: string | null;
      indexed_version: number;
    }>(
      // A synced document being re-processed (a later version queued) still answers with the chunks of
      // its previous version, which stay in the index until the new version's replace them.
      `SELECT id, source_id, source_item,
              CASE WHEN status = 'ready' THEN version ELSE version - 1 END AS indexed_version
       FROM documents WHERE workspace_id = $1 AND id = ANY($2::text[])
         AND (status = 'ready' OR (version > 1 AND status IN ('queued', 'processing')))`,
      [workspaceId, documentIds],
    );
    return new Map(
      r.rows.map((x) => [
        x.id,
        { source: x.source_id, sourceItem: x.source_item, version: x.indexed_version },
      ]),
    );
  }

  async countsByStatus(audience: Audience, workspaceId: string): Promise<DocumentCounts> {
    const vis = visibilityFor(audience, 2);
    const r = await this.pool.query<StatusCountRow>(
      `SELECT d.status, count(*) AS n FROM documents d WHERE d.workspace_id = $1 AND ${vis.document('d')}
        GROUP BY d.status`,
      [workspaceId, ...vis.params],
    );
    return countsFrom(r.rows);
  }

  async encryptedValues(): Promise<{ id: string; context: string; value: string }[]> {
    const r = await this.pool.query<{ id: string; fetch_headers: string }>(
      'SELECT id, fetch_headers FROM documents WHERE fetch_headers IS NOT NULL',
    );
    return r.rows.map((x) => ({ id: x.id, context: fetchHeadersContext(x.id), value: x.fetch_headers }));
  }

  async replaceEncryptedValue(documentId: string, value: string): Promise<void> {
    await this.pool.query(
      'UPDATE documents SET fetch_headers = $2 WHERE id = $1 AND fetch_headers IS NOT NULL',
      [documentId, value],
    );
  }
}
