import { createPool } from '../../src/adapters/postgres/db.js';
import { PgDocumentRepository } from '../../src/adapters/postgres/documents.js';
import { PgWorkRepository } from '../../src/adapters/postgres/work.js';
import type { RunStatus } from '../../src/domain/types.js';
import { newId } from '../../src/ids.js';
import { createTestDatabases } from '../support/service.js';
import { workStoreContract } from '../support/work-store-contract.js';

// The repository the worker uses, under the suite its in-memory fake passes too
// (test/unit/work-store.test.ts).
workStoreContract('PostgreSQL', async () => {
  const dbs = await createTestDatabases();
  const pool = createPool(dbs.urls.service, 2, 'work-store-test');
  const work = new PgWorkRepository(pool);
  const documents = new PgDocumentRepository(pool);
  const workspaceId = newId('ws');
  await pool.query(`INSERT INTO workspaces (id, account_id) VALUES ($1, 'acc_default')`, [workspaceId]);
  return {
    work,
    async seed(status: RunStatus, attempts: number[], where = { accountId: 'acc_default', workspaceId }) {
      await pool.query('INSERT INTO accounts (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING', [
        where.accountId,
      ]);
      await pool.query('INSERT INTO workspaces (id, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
        where.workspaceId,
        where.accountId,
      ]);
      const runId = newId('run');
      await pool.query(
        `INSERT INTO runs (id, account_id, workspace_id, status, kind) VALUES ($1, $2, $3, $4, 'upload')`,
        [runId, where.accountId, where.workspaceId, status],
      );
      const documentIds: string[] = [];
      for (const a of attempts) {
        const id = newId('doc');
        await pool.query(
          `INSERT INTO documents (id, account_id, workspace_id, run_id, filename, size_bytes, sha256, storage_key, status, attempts)
           VALUES ($1, $2, $3, $4, 'a.md', 1, 'x', $5, 'queued', $6)`,
          [id, where.accountId, where.workspaceId, runId, `raw/${id}`, a],
        );
        documentIds.push(id);
      }
      return { runId, documentIds };
    },
    async setRunStatus(runId, status) {
      await pool.query('UPDATE runs SET status = $2 WHERE id = $1', [runId, status]);
    },
    document: async (id) => (await documents.getDocument({ accountId: 'acc_default' }, id))!,
    async runStatus(runId) {
      const r = await pool.query<{ status: RunStatus }>('SELECT status FROM runs WHERE id = $1', [runId]);
      return r.rows[0]!.status;
    },
    // The database's clock cannot be moved: the leases are moved back instead.
    async expireLeases(seconds) {
      await pool.query(
        `UPDATE documents SET lease_expires_at = lease_expires_at - make_interval(secs => $1)
         WHERE lease_expires_at IS NOT NULL`,
        [seconds + 0.001],
      );
    },
    async passTime(seconds) {
      await pool.query(
        `UPDATE documents SET lease_expires_at = lease_expires_at - make_interval(secs => $1),
           updated_at = updated_at - make_interval(secs => $1), requeued_at = requeued_at - make_interval(secs => $1)`,
        [seconds + 0.001],
      );
    },
    async close() {
      await pool.end();
      await dbs.drop();
    },
  };
});
