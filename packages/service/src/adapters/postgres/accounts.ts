import type { AccountOverview, AccountStore, NewApiKey, OverviewStore } from '../../domain/stores.js';
import type { ApiKeyRecord, Audience, RunKind, RunStatus } from '../../domain/types.js';
import type { Pool } from './db.js';
import {
  type ApiKeyRow,
  countsFrom,
  type FailureRow,
  type StatusCountRow,
  toApiKey,
  toFailure,
} from './rows.js';
import { visibilityFor } from './visibility.js';

interface AccountRow {
  id: string;
  name: string;
}

interface ActiveRunRow {
  id: string;
  workspace_id: string;
  status: RunStatus;
  kind: RunKind;
  source_name: string | null;
  created_at: Date;
  documents: number;
  finished: number;
}

interface RecentFailureRow extends FailureRow {
  workspace_id: string;
  run_id: string;
  finished_at: Date;
}

/** Accounts, their API keys and the account's overview for the console. */
export class PgAccountRepository implements AccountStore, OverviewStore {
  constructor(private readonly pool: Pool) {}

  async ensureAccount(name: string): Promise<{ id: string; name: string }> {
    const existing = await this.findAccount(name);
    if (existing) return existing;
    const id = `acc_${name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .slice(0, 40)}_${Date.now().toString(36)}`;
    await this.pool.query('INSERT INTO accounts (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      id,
      name,
    ]);
    return (await this.findAccount(name))!;
  }

  async findAccount(idOrName: string): Promise<{ id: string; name: string } | undefined> {
    const r = await this.pool.query<AccountRow>(
      'SELECT id, name FROM accounts WHERE id = $1 OR name = $1 LIMIT 1',
      [idOrName],
    );
    return r.rows[0];
  }

  async insertApiKey(key: NewApiKey): Promise<ApiKeyRecord> {
    const r = await this.pool.query<ApiKeyRow>(
      `INSERT INTO api_keys (id, account_id, name, key_prefix, key_hash, scopes, user_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [key.id, key.accountId, key.name, key.prefix, key.hash, key.scopes, key.userId ?? null],
    );
    return toApiKey(r.rows[0]!);
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const r = await this.pool.query<ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = $1', [hash]);
    return r.rows[0] && toApiKey(r.rows[0]);
  }

  async listApiKeys(accountId: string | undefined): Promise<ApiKeyRecord[]> {
    const r = await this.pool.query<ApiKeyRow>(
      'SELECT * FROM api_keys WHERE ($1::text IS NULL OR account_id = $1) ORDER BY created_at',
      [accountId ?? null],
    );
    return r.rows.map(toApiKey);
  }

  async revokeApiKey(idOrPrefix: string, accountId: string | undefined): Promise<ApiKeyRecord | undefined> {
    const r = await this.pool.query<ApiKeyRow>(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
       WHERE (id = $1 OR key_prefix = $1) AND ($2::text IS NULL OR account_id = $2) RETURNING *`,
      [idOrPrefix, accountId ?? null],
    );
    return r.rows[0] && toApiKey(r.rows[0]);
  }

  async touchApiKey(id: string): Promise<void> {
    await this.pool.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [id]);
  }

  async accountOverview(audience: Audience): Promise<AccountOverview> {
    const vis = visibilityFor(audience, 2);
    const { accountId } = audience;
    const counts = await this.pool.query<StatusCountRow>(
      `SELECT d.status, count(*) AS n FROM documents d JOIN workspaces w ON w.id = d.workspace_id
        WHERE d.account_id = $1 AND ${vis.readable('w', 'd')} GROUP BY d.status`,
      [accountId, ...vis.params],
    );
    // A member's runs: those of workspaces it may read that brought it something to see (or nothing yet).
    const runSeen = audience.member
      ? `(NOT EXISTS (SELECT 1 FROM documents x WHERE x.run_id = r.id)
          OR EXISTS (SELECT 1 FROM documents x WHERE x.run_id = r.id AND ${vis.document('x')}))`
      : 'TRUE';
    const runs = await this.pool.query<{ n: number }>(
      `SELECT count(*) AS n FROM runs r JOIN workspaces w ON w.id = r.workspace_id
        WHERE r.account_id = $1 AND r.status = 'processing' AND ${vis.workspace('w')} AND ${runSeen}`,
      [accountId, ...vis.params],
    );
    const active = await this.pool.query<ActiveRunRow>(
      `SELECT r.id, r.workspace_id, r.status, r.kind, s.name AS source_name, r.created_at,
              count(d.id) AS documents,
              count(d.id) FILTER (WHERE d.status NOT IN ('queued', 'processing')) AS finished
       FROM runs r JOIN workspaces w ON w.id = r.workspace_id
            LEFT JOIN documents d ON d.run_id = r.id AND ${vis.document('d')}
            LEFT JOIN sources s ON s.id = r.source_id
       WHERE r.account_id = $1 AND r.status IN ('processing', 'paused') AND ${vis.workspace('w')} AND ${runSeen}
       GROUP BY r.id, s.name ORDER BY r.created_at DESC LIMIT 10`,
      [accountId, ...vis.params],
    );
    const failures = await this.pool.query<RecentFailureRow>(
      `SELECT d.id, d.filename, d.error_code, d.error_message, d.workspace_id, d.run_id, d.finished_at
         FROM documents d JOIN workspaces w ON w.id = d.workspace_id
       WHERE d.account_id = $1 AND d.status = 'failed' AND ${vis.readable('w', 'd')}
       ORDER BY d.finished_at DESC NULLS LAST LIMIT 10`,
      [accountId, ...vis.params],
    );
    return {
      documents: countsFrom(counts.rows),
      runsProcessing: runs.rows[0]?.n ?? 0,
      activeRuns: active.rows.map((r) => ({
        id: r.id,
        workspaceId: r.workspace_id,
        status: r.status,
        kind: r.kind,
        sourceName: r.source_name,
        createdAt: r.created_at,
        documents: r.documents,
        finished: r.finished,
      })),
      recentFailures: failures.rows.map((f) => ({
        ...toFailure(f),
        workspaceId: f.workspace_id,
        runId: f.run_id,
        failedAt: f.finished_at,
      })),
    };
  }
}
