import type { LeaseStore } from '../../domain/stores.js';
import type { Pool } from './db.js';

/**
 * Named leases in the service database (worker_leases): one holder at a time until it lets go or
 * its lease lapses. One statement each, so they hold through PgBouncer in transaction mode, where
 * a session advisory lock would be released (or kept) with a connection we do not own.
 */
export class PgLeaseRepository implements LeaseStore {
  constructor(private readonly pool: Pool) {}

  async acquire(name: string, holder: string, seconds: number): Promise<boolean> {
    const r = await this.pool.query(
      `INSERT INTO worker_leases (name, holder, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
       ON CONFLICT (name) DO UPDATE SET holder = $2, expires_at = now() + make_interval(secs => $3)
       WHERE worker_leases.holder = $2 OR worker_leases.expires_at < now()
       RETURNING 1`,
      [name, holder, seconds],
    );
    return r.rowCount === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.pool.query('DELETE FROM worker_leases WHERE name = $1 AND holder = $2', [name, holder]);
  }
}
