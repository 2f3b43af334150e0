import type { SearchMode } from '../search/search.js';
import type { Metrics, QuestionChecks } from './metrics.js';
import type { Question } from './questions.js';

/** A workspace's question set as listed: what it is, not its questions. */
export interface QuestionSetSummary {
  id: string;
  accountId: string;
  workspaceId: string;
  name: string;
  questionCount: number;
  /** Who made it (the audit log's actor: an e-mail, a key's prefix, or both). */
  createdBy: string;
  createdAt: Date;
}

export interface QuestionSet extends QuestionSetSummary {
  questions: Question[];
}

/** Question sets as their workspaces keep them (adapters/postgres/question-sets.ts). */
export interface QuestionSetStore {
  /** Undefined when the account has no such workspace (it was deleted meanwhile). */
  insertQuestionSet(set: Omit<QuestionSet, 'createdAt' | 'questionCount'>): Promise<QuestionSet | undefined>;
  /** Newest first. */
  listQuestionSets(accountId: string, workspaceId: string): Promise<QuestionSetSummary[]>;
  getQuestionSet(accountId: string, questionSetId: string): Promise<QuestionSet | undefined>;
  deleteQuestionSet(accountId: string, questionSetId: string): Promise<boolean>;
}

export type EvaluationStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export const FINISHED_EVALUATION: readonly EvaluationStatus[] = ['completed', 'failed', 'cancelled'];

export type AnswerMode = 'extractive' | 'model';

/** One way of asking the questions, with every choice resolved when the evaluation was made. */
export interface EvaluationConfiguration {
  name: string;
  search: {
    topK: number;
    mode: SearchMode;
    hybridWeight: number;
    rerank: boolean;
    /** At most this many passages of one document; null (or absent, in older rows): no limit. */
    maxChunksPerDocument?: number | null | undefined;
  };
  /** Null: passages only, no answers asked for. */
  answers: { mode: AnswerMode } | null;
}

/** A configuration's metrics, overall and per language and tag. */
export interface ConfigurationResults {
  configuration: string;
  metrics: Metrics;
  languages: Record<string, Metrics>;
  tags: Record<string, Metrics>;
}

export interface EvaluationRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  /** Null once the set was deleted (the evaluation keeps its name and results). */
  questionSetId: string | null;
  questionSetName: string;
  name: string;
  configurations: EvaluationConfiguration[];
  status: EvaluationStatus;
  /**
   * Whose view the questions are asked with: `user` (that user's role and groups when it runs; null
   * when the user was removed since), or the whole account.
   */
  owner: { kind: 'account' } | { kind: 'user'; userId: string | null };
  createdBy: string;
  /** Questions times configurations: what progress counts to. */
  total: number;
  done: number;
  error: { code: string; message: string } | null;
  results: ConfigurationResults[] | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface RetrievedReference {
  rank: number;
  documentId: string;
  filename: string;
  page: number | null;
  score: number;
  chunkId: string;
}

/** What one question got under one configuration, as kept (the passages' texts are not). */
export interface StoredOutcome {
  q: string;
  language: string | null;
  tags: string[];
  retrieved: RetrievedReference[];
  answer: {
    text: string;
    kind: string;
    declined: boolean;
    citations: { n: number; documentId: string; filename: string; page: number | null; chunkId: string }[];
  } | null;
  searchMs: number;
  chatMs: number | null;
  checks: QuestionChecks;
}

export interface OutcomeRow {
  configuration: number;
  ordinal: number;
  outcome: StoredOutcome;
}

/** Evaluations and what each question got (adapters/postgres/evaluations.ts). */
export interface EvaluationStore {
  /** Undefined when the account has no such workspace (it was deleted meanwhile). */
  insertEvaluation(
    e: Omit<
      EvaluationRecord,
      'status' | 'done' | 'error' | 'results' | 'createdAt' | 'startedAt' | 'finishedAt'
    >,
  ): Promise<EvaluationRecord | undefined>;
  getEvaluation(accountId: string, id: string): Promise<EvaluationRecord | undefined>;
  /** Newest first; `ownerUserId` keeps those run as that user only. */
  listEvaluations(accountId: string, workspaceId: string, ownerUserId?: string): Promise<EvaluationRecord[]>;
  /**
   * Takes the evaluation for `holder` until `leaseSeconds` from now: a queued one, one it holds, or one
   * whose holder's lease lapsed. Running from then on; undefined when it is finished or held.
   */
  claimEvaluation(id: string, holder: string, leaseSeconds: number): Promise<EvaluationRecord | undefined>;
  /** The (configuration, ordinal) pairs already asked, for a worker that takes over. */
  askedOutcomes(id: string): Promise<Set<string>>;
  /**
   * Keeps outcomes (a pair kept already is left as it was), counts progress and renews the lease.
   * Says the evaluation's status, or `lost` when the lease is another's now.
   */
  recordOutcomes(
    id: string,
    holder: string,
    leaseSeconds: number,
    outcomes: OutcomeRow[],
  ): Promise<EvaluationStatus | 'lost'>;
  /** In ordinal order; one configuration's, or every one's. */
  listOutcomes(
    id: string,
    options: { configuration?: number; offset: number; limit: number },
  ): Promise<OutcomeRow[]>;
  /** Ends a running evaluation the holder has (and announces it to webhooks): false if it is not. */
  finishEvaluation(
    id: string,
    holder: string,
    end:
      | { status: 'completed'; results: ConfigurationResults[] }
      | { status: 'failed'; error: { code: string; message: string } }
      | { status: 'cancelled' },
  ): Promise<boolean>;
  /** Cancels a queued or running one; the record after, or undefined when there is none. */
  cancelEvaluation(accountId: string, id: string): Promise<EvaluationRecord | undefined>;
  deleteEvaluation(accountId: string, id: string): Promise<boolean>;
  /** Unfinished evaluations whose job may have been lost (queued long, or their holder's lease lapsed). */
  lostEvaluations(queuedForSeconds: number, limit: number): Promise<string[]>;
}
