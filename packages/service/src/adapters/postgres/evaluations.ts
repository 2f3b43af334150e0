import { storedChecks, storedMetrics } from '../../evaluation/metrics.js';
import type {
  ConfigurationResults,
  EvaluationConfiguration,
  EvaluationRecord,
  EvaluationStatus,
  EvaluationStore,
  OutcomeRow,
  StoredOutcome,
} from '../../evaluation/store.js';
import { inTransaction, type Pool } from './db.js';
import { announceEvaluationIn } from './outbox.js';

interface EvaluationRow {
  id: string;
  account_id: string;
  workspace_id: string;
  question_set_id: string | null;
  question_set_name: string;
  name: string;
  configurations: EvaluationConfiguration[];
  status: EvaluationStatus;
  owner_user_id: string | null;
  owner_is_user: boolean;
  created_by: string;
  questions_total: number;
  questions_done: number;
  error_code: string | null;
  error_message: string | null;
  results: ConfigurationResults[] | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const mapValues = <T, U>(o: Record<string, T>, f: (v: T) => U): Record<string, U> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

export const toEvaluation = (r: EvaluationRow): EvaluationRecord => ({
  id: r.id,
  accountId: r.account_id,
  workspaceId: r.workspace_id,
  questionSetId: r.question_set_id,
  questionSetName: r.question_set_name,
  name: r.name,
  configurations: r.configurations,
  status: r.status,
  owner: r.owner_is_user ? { kind: 'user', userId: r.owner_user_id } : { kind: 'account' },
  createdBy: r.created_by,
  total: r.questions_total,
  done: r.questions_done,
  error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
  results:
    r.results?.map((c) => ({
      ...c,
      metrics: storedMetrics(c.metrics),
      languages: mapValues(c.languages, storedMetrics),
      tags: mapValues(c.tags, storedMetrics),
    })) ?? null,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

const COLUMNS = `id, account_id, workspace_id, question_set_id, question_set_name, name, configurations, status,
  owner_user_id, owner_is_user, created_by, questions_total, questions_done, error_code, error_message,
  results, created_at, started_at, finished_at`;

/** Evaluations: a row each for the job's state and results, a row per question asked. */
export class PgEvaluationRepository implements EvaluationStore {
  constructor(private readonly pool: Pool) {}

  async insertEvaluation(
    e: Parameters<EvaluationStore['insertEvaluation']>[0],
  ): Promise<EvaluationRecord | undefined> {
    // Inserted only while the workspace is there, as question sets are.
    const r = await this.pool.query<EvaluationRow>(
      `INSERT INTO evaluations (id, account_id, workspace_id, question_set_id, question_set_name, name,
                                configurations, owner_user_id, owner_is_user, created_by, questions_total)
       SELECT $1, $2, w.id, $4, $5, $6, $7::jsonb, $8, $9, $10, $11
         FROM workspaces w WHERE w.id = $3 AND w.account_id = $2
       RETURNING ${COLUMNS}`,
      [
        e.id,
        e.accountId,
        e.workspaceId,
        e.questionSetId,
        e.questionSetName,
        e.name,
        JSON.stringify(e.configurations),
        e.owner.kind === 'user' ? e.owner.userId : null,
        e.owner.kind === 'user',
        e.createdBy,
        e.total,
      ],
    );
    return r.rows[0] && toEvaluation(r.rows[0]);
  }

  async getEvaluation(accountId: string, id: string): Promise<EvaluationRecord | undefined> {
    const r = await this.pool.query<EvaluationRow>(
      `SELECT ${COLUMNS} FROM evaluations WHERE id = $1 AND account_id = $2`,
      [id, accountId],
    );
    return r.rows[0] && toEvaluation(r.rows[0]);
  }

  async listEvaluations(
    accountId: string,
    workspaceId: string,
    ownerUserId?: string,
  ): Promise<EvaluationRecord[]> {
    const r = await this.pool.query<EvaluationRow>(
      `SELECT ${COLUMNS} FROM evaluations
        WHERE workspace_id = $1 AND account_id = $2 AND ($3::text IS NULL OR owner_user_id = $3)
        ORDER BY created_at DESC, id DESC LIMIT 200`,
      [workspaceId, accountId, ownerUserId ?? null],
    );
    return r.rows.map(toEvaluation);
  }

  async claimEvaluation(
    id: string,
    holder: string,
    leaseSeconds: number,
  ): Promise<EvaluationRecord | undefined> {
    const r = await this.pool.query<EvaluationRow>(
      `UPDATE evaluations SET status = 'running', lease_holder = $2,
              lease_until = now() + make_interval(secs => $3), started_at = coalesce(started_at, now()),
              updated_at = now()
        WHERE id = $1 AND (status = 'queued'
              OR (status = 'running' AND (lease_holder = $2 OR lease_until IS NULL OR lease_until < now())))
       RETURNING ${COLUMNS}`,
      [id, holder, leaseSeconds],
    );
    return r.rows[0] && toEvaluation(r.rows[0]);
  }

  async askedOutcomes(id: string): Promise<Set<string>> {
    const r = await this.pool.query<{ configuration: number; ordinal: number }>(
      'SELECT configuration, ordinal FROM evaluation_outcomes WHERE evaluation_id = $1',
      [id],
    );
    return new Set(r.rows.map((o) => `${o.configuration}:${o.ordinal}`));
  }

  async recordOutcomes(
    id: string,
    holder: string,
    leaseSeconds: number,
    outcomes: OutcomeRow[],
  ): Promise<EvaluationStatus | 'lost'> {
    return inTransaction(this.pool, async (c) => {
      // The row first, locked: a worker that lost its lease writes nothing.
      const held = await c.query<{ status: EvaluationStatus; lease_holder: string | null }>(
        'SELECT status, lease_holder FROM evaluations WHERE id = $1 FOR UPDATE',
        [id],
      );
      const row = held.rows[0];
      if (!row) return 'cancelled';
      if (row.status !== 'running') return row.status;
      if (row.lease_holder !== holder) return 'lost';
      if (outcomes.length > 0)
        await c.query(
          `INSERT INTO evaluation_outcomes (evaluation_id, configuration, ordinal, outcome)
           SELECT $1, u.configuration, u.ordinal, u.outcome
             FROM unnest($2::int[], $3::int[], $4::jsonb[]) AS u(configuration, ordinal, outcome)
           ON CONFLICT DO NOTHING`,
          [
            id,
            outcomes.map((o) => o.configuration),
            outcomes.map((o) => o.ordinal),
            outcomes.map((o) => JSON.stringify(o.outcome)),
          ],
        );
      await c.query(
        `UPDATE evaluations SET lease_until = now() + make_interval(secs => $2), updated_at = now(),
                questions_done = (SELECT count(*) FROM evaluation_outcomes WHERE evaluation_id = $1)
          WHERE id = $1`,
        [id, leaseSeconds],
      );
      return 'running';
    });
  }

  async listOutcomes(
    id: string,
    options: { configuration?: number; offset: number; limit: number },
  ): Promise<OutcomeRow[]> {
    const r = await this.pool.query<{ configuration: number; ordinal: number; outcome: StoredOutcome }>(
      `SELECT configuration, ordinal, outcome FROM evaluation_outcomes
        WHERE evaluation_id = $1 AND ($2::int IS NULL OR configuration = $2)
        ORDER BY configuration, ordinal OFFSET $3 LIMIT $4`,
      [id, options.configuration ?? null, options.offset, Math.min(options.limit, 1_000_000)],
    );
    return r.rows.map((row) => ({
      ...row,
      outcome: { ...row.outcome, checks: storedChecks(row.outcome.checks) },
    }));
  }

  async finishEvaluation(
    id: string,
    holder: string,
    end: Parameters<EvaluationStore['finishEvaluation']>[2],
  ): Promise<boolean> {
    return inTransaction(this.pool, async (c) => {
      const r = await c.query<EvaluationRow>(
        `UPDATE evaluations SET status = $3, results = $4::jsonb, error_code = $5, error_message = $6,
                finished_at = now(), updated_at = now(), lease_holder = NULL, lease_until = NULL
          WHERE id = $1 AND status = 'running' AND lease_holder = $2
         RETURNING ${COLUMNS}`,
        [
          id,
          holder,
          end.status,
          end.status === 'completed' ? JSON.stringify(end.results) : null,
          end.status === 'failed' ? end.error.code : null,
          end.status === 'failed' ? end.error.message : null,
        ],
      );
      if (!r.rows[0]) return false;
      await announceEvaluationIn(c, toEvaluation(r.rows[0]));
      return true;
    });
  }

  async cancelEvaluation(accountId: string, id: string): Promise<EvaluationRecord | undefined> {
    await this.pool.query(
      `UPDATE evaluations SET status = 'cancelled', finished_at = now(), updated_at = now(),
              lease_holder = NULL, lease_until = NULL
        WHERE id = $1 AND account_id = $2 AND status IN ('queued', 'running')`,
      [id, accountId],
    );
    return this.getEvaluation(accountId, id);
  }

  async deleteEvaluation(accountId: string, id: string): Promise<boolean> {
    const r = await this.pool.query('DELETE FROM evaluations WHERE id = $1 AND account_id = $2', [
      id,
      accountId,
    ]);
    return (r.rowCount ?? 0) > 0;
  }

  async lostEvaluations(queuedForSeconds: number, limit: number): Promise<string[]> {
    const r = await this.pool.query<{ id: string }>(
      `SELECT id FROM evaluations
        WHERE (status = 'queued' AND updated_at < now() - make_interval(secs => $1))
           OR (status = 'running' AND (lease_until IS NULL OR lease_until < now()))
        ORDER BY updated_at LIMIT $2`,
      [queuedForSeconds, limit],
    );
    return r.rows.map((e) => e.id);
  }
}
