import type { AuditEvent, AuditQuery, AuditStore, NewAuditEvent } from '../../domain/stores.js';
import type { Pool } from './db.js';

interface AuditRow {
  id: number;
  at: Date;
  actor: string;
  actor_user_id: string | null;
  actor_key_id: string | null;
  client_address: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  outcome: AuditEvent['outcome'];
  details: Record<string, unknown>;
}

const toEvent = (r: AuditRow): AuditEvent => ({
  id: String(r.id),
  at: r.at,
  actor: r.actor,
  actorUserId: r.actor_user_id,
  actorKeyId: r.actor_key_id,
  clientAddress: r.client_address,
  action: r.action,
  targetType: r.target_type,
  targetId: r.target_id,
  outcome: r.outcome,
  details: r.details ?? {},
});

/** The audit log (migration 0017: a trigger refuses every UPDATE of it). */
export class PgAuditRepository implements AuditStore {
  constructor(private readonly pool: Pool) {}

  async append(e: NewAuditEvent): Promise<void> {
    await this.pool.query(
      `INSERT INTO audit_events (account_id, actor, actor_user_id, actor_key_id, client_address, action,
                                 target_type, target_id, outcome, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        e.accountId,
        e.actor,
        e.actorUserId,
        e.actorKeyId,
        e.clientAddress,
        e.action,
        e.targetType,
        e.targetId,
        e.outcome,
        JSON.stringify(e.details),
      ],
    );
  }

  async list(accountId: string, q: AuditQuery): Promise<AuditEvent[]> {
    const r = await this.pool.query<AuditRow>(
      `SELECT * FROM audit_events
        WHERE account_id = $1
          AND ($2::text IS NULL OR actor = $2 OR actor_user_id = $2 OR actor_key_id = $2)
          AND ($3::text IS NULL OR action = $3 OR action LIKE $3 || '.%')
          AND ($4::text IS NULL OR target_id = $4)
          AND ($5::timestamptz IS NULL OR at >= $5)
          AND ($6::timestamptz IS NULL OR at < $6)
          AND ($7::bigint IS NULL OR id < $7)
        ORDER BY id DESC LIMIT $8`,
      [
        accountId,
        q.actor ?? null,
        q.action ?? null,
        q.targetId ?? null,
        q.since ?? null,
        q.until ?? null,
        q.before ?? null,
        q.limit,
      ],
    );
    return r.rows.map(toEvent);
  }

  async purgeOlderThan(days: number): Promise<number> {
    const r = await this.pool.query('DELETE FROM audit_events WHERE at < now() - make_interval(days => $1)', [
      days,
    ]);
    return r.rowCount ?? 0;
  }
}
