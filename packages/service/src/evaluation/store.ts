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
