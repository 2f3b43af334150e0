import { type Question, storedQuestion } from '../../evaluation/questions.js';
import type { QuestionSet, QuestionSetStore, QuestionSetSummary } from '../../evaluation/store.js';
import type { Pool } from './db.js';

interface SummaryRow {
  id: string;
  account_id: string;
  workspace_id: string;
  name: string;
  question_count: number;
  created_by: string;
  created_at: Date;
}

const SUMMARY_COLUMNS = 'id, account_id, workspace_id, name, question_count, created_by, created_at';

const toSummary = (r: SummaryRow): QuestionSetSummary => ({
  id: r.id,
  accountId: r.account_id,
  workspaceId: r.workspace_id,
  name: r.name,
  questionCount: r.question_count,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

/** Question sets, a row each with its questions as one JSON document. */
export class PgQuestionSetRepository implements QuestionSetStore {
  constructor(private readonly pool: Pool) {}

  async insertQuestionSet(
    set: Omit<QuestionSet, 'createdAt' | 'questionCount'>,
  ): Promise<QuestionSet | undefined> {
    // Inserted only while the workspace is there: a set is never left behind by a deletion under way.
    const r = await this.pool.query<SummaryRow>(
      `INSERT INTO question_sets (id, account_id, workspace_id, name, questions, question_count, created_by)
       SELECT $1, $2, w.id, $4, $5::jsonb, $6, $7 FROM workspaces w WHERE w.id = $3 AND w.account_id = $2
       RETURNING ${SUMMARY_COLUMNS}`,
      [
        set.id,
        set.accountId,
        set.workspaceId,
        set.name,
        JSON.stringify(set.questions),
        set.questions.length,
        set.createdBy,
      ],
    );
    return r.rows[0] && { ...toSummary(r.rows[0]), questions: set.questions };
  }

  async listQuestionSets(accountId: string, workspaceId: string): Promise<QuestionSetSummary[]> {
    const r = await this.pool.query<SummaryRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM question_sets WHERE workspace_id = $1 AND account_id = $2
       ORDER BY created_at DESC, id DESC`,
      [workspaceId, accountId],
    );
    return r.rows.map(toSummary);
  }

  async getQuestionSet(accountId: string, questionSetId: string): Promise<QuestionSet | undefined> {
    const r = await this.pool.query<SummaryRow & { questions: Question[] }>(
      `SELECT ${SUMMARY_COLUMNS}, questions FROM question_sets WHERE id = $1 AND account_id = $2`,
      [questionSetId, accountId],
    );
    const row = r.rows[0];
    return row && { ...toSummary(row), questions: row.questions.map(storedQuestion) };
  }

  async deleteQuestionSet(accountId: string, questionSetId: string): Promise<boolean> {
    const r = await this.pool.query('DELETE FROM question_sets WHERE id = $1 AND account_id = $2', [
      questionSetId,
      accountId,
    ]);
    return (r.rowCount ?? 0) > 0;
  }
}
