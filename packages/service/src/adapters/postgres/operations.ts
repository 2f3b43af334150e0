import type { OpsStore } from '../../domain/stores.js';
import type { Pool } from './db.js';

/** What readiness and metrics ask of the service database. */
export class PgOpsRepository implements OpsStore {
  constructor(private readonly pool: Pool) {}

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async schemaVersion(): Promise<number> {
    const r = await this.pool.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    return r.rows[0]?.v ?? 0;
  }

  async globalDocumentCounts(): Promise<Record<string, number>> {
    const r = await this.pool.query<{ status: string; n: number }>(
      'SELECT status, count(*) AS n FROM documents GROUP BY status',
    );
    return Object.fromEntries(r.rows.map((x) => [x.status, x.n]));
  }

  async globalRunCounts(): Promise<Record<string, number>> {
    const r = await this.pool.query<{ status: string; n: number }>(
      'SELECT status, count(*) AS n FROM runs GROUP BY status',
    );
    return Object.fromEntries(r.rows.map((x) => [x.status, x.n]));
  }

  async webhookBacklog(): Promise<{ pending: number; due: number }> {
    const r = await this.pool.query<{ pending: number; due: number }>(
      `SELECT count(*) AS pending, count(*) FILTER (WHERE next_attempt_at <= now()) AS due
       FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return r.rows[0] ?? { pending: 0, due: 0 };
  }
}
