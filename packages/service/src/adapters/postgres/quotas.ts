import type { AccountUse, QuotaChange, QuotaStore } from '../../accounts/store.js';
import { QUOTAS, type QuotaLimits, type QuotaName } from '../../domain/types.js';
import type { Pool, Queryable } from './db.js';

/** Today as the daily counts name it: the UTC date of the transaction (the same in every process). */
const TODAY = "(now() AT TIME ZONE 'UTC')::date";

export async function quotaOverridesOf(c: Queryable, accountId: string): Promise<Partial<QuotaLimits>> {
  const r = await c.query<{ quota: QuotaName; limit_value: number | null }>(
    'SELECT quota, limit_value FROM account_quota_overrides WHERE account_id = $1',
    [accountId],
  );
  return Object.fromEntries(r.rows.map((o) => [o.quota, o.limit_value]));
}

/**
 * What the account holds and used today. With `lock`, its usage row stays locked until the
 * transaction ends: uploads of one account check and record one after the other.
 */
export async function accountUseOf(c: Queryable, accountId: string, lock = false): Promise<AccountUse> {
  if (lock)
    await c.query('INSERT INTO account_usage (account_id) VALUES ($1) ON CONFLICT DO NOTHING', [accountId]);
  const r = await c.query<{ documents: number; stored_bytes: number; uploads: number; questions: number }>(
    `SELECT coalesce(u.documents, 0) AS documents, coalesce(u.stored_bytes, 0) AS stored_bytes,
            coalesce((SELECT used FROM account_daily_use WHERE account_id = $1 AND quota = 'uploadsPerDay' AND day = ${TODAY}), 0) AS uploads,
            coalesce((SELECT used FROM account_daily_use WHERE account_id = $1 AND quota = 'questionsPerDay' AND day = ${TODAY}), 0) AS questions
       FROM ${lock ? 'account_usage u WHERE u.account_id = $1 FOR UPDATE' : '(SELECT 1) one LEFT JOIN account_usage u ON u.account_id = $1'}`,
    [accountId],
  );
  const row = r.rows[0]!;
  return {
    documents: row.documents,
    storedBytes: row.stored_bytes,
    uploadsPerDay: row.uploads,
    questionsPerDay: row.questions,
  };
}

/** Adds an upload's files to today's count (inside the upload's transaction). */
export async function countUploads(c: Queryable, accountId: string, files: number): Promise<void> {
  await c.query(
    `INSERT INTO account_daily_use AS u (account_id, quota, day, used) VALUES ($1, 'uploadsPerDay', ${TODAY}, $2)
     ON CONFLICT (account_id, quota, day) DO UPDATE SET used = u.used + EXCLUDED.used`,
    [accountId, files],
  );
}

export class PgQuotaRepository implements QuotaStore {
  constructor(private readonly pool: Pool) {}

  quotaOverrides(accountId: string): Promise<Partial<QuotaLimits>> {
    return quotaOverridesOf(this.pool, accountId);
  }

  async setQuotaOverrides(
    accountId: string,
    changes: Partial<Record<QuotaName, QuotaChange>>,
  ): Promise<Partial<QuotaLimits>> {
    for (const quota of QUOTAS) {
      const change = changes[quota];
      if (change === undefined) continue;
      if (change === 'default')
        await this.pool.query('DELETE FROM account_quota_overrides WHERE account_id = $1 AND quota = $2', [
          accountId,
          quota,
        ]);
      else
        await this.pool.query(
          `INSERT INTO account_quota_overrides (account_id, quota, limit_value) VALUES ($1, $2, $3)
           ON CONFLICT (account_id, quota) DO UPDATE SET limit_value = EXCLUDED.limit_value, updated_at = now()`,
          [accountId, quota, change],
        );
    }
    return quotaOverridesOf(this.pool, accountId);
  }

  accountUse(accountId: string): Promise<AccountUse> {
    return accountUseOf(this.pool, accountId);
  }

  async countQuestion(
    accountId: string,
    fallback: number | null,
  ): Promise<{ counted: true } | { counted: false; limit: number; used: number }> {
    // The limit is read in the same statement as the count rises: one round trip per question, and
    // an operator's change applies to the next question in every process.
    const r = await this.pool.query<{ used: number }>(
      `WITH lim AS (
         SELECT CASE WHEN o.account_id IS NULL THEN $2::bigint ELSE o.limit_value END AS l
           FROM (SELECT 1) one
           LEFT JOIN account_quota_overrides o ON o.account_id = $1 AND o.quota = 'questionsPerDay')
       INSERT INTO account_daily_use AS u (account_id, quota, day, used)
       SELECT $1, 'questionsPerDay', ${TODAY}, 1 FROM lim WHERE lim.l IS NULL OR lim.l >= 1
       ON CONFLICT (account_id, quota, day) DO UPDATE SET used = u.used + 1
         WHERE (SELECT l FROM lim) IS NULL OR u.used < (SELECT l FROM lim)
       RETURNING used`,
      [accountId, fallback],
    );
    if (r.rows.length > 0) return { counted: true };
    const [overrides, use] = await Promise.all([
      quotaOverridesOf(this.pool, accountId),
      accountUseOf(this.pool, accountId),
    ]);
    const limit = 'questionsPerDay' in overrides ? overrides.questionsPerDay : fallback;
    return { counted: false, limit: limit ?? 0, used: use.questionsPerDay };
  }

  async purgeDailyUse(keepDays: number): Promise<number> {
    const r = await this.pool.query(`DELETE FROM account_daily_use WHERE day < ${TODAY} - $1::int`, [
      keepDays,
    ]);
    return r.rowCount ?? 0;
  }
}
