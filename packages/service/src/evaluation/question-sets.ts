import { requireEdit } from '../access/checks.js';
import type { WorkspaceStore } from '../domain/stores.js';
import type { Principal } from '../domain/types.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import {
  checkQuestions,
  isProblems,
  QUESTION_LIMITS,
  type Question,
  type QuestionFormat,
  readQuestionFile,
} from './questions.js';
import type { QuestionSet, QuestionSetStore, QuestionSetSummary } from './store.js';

/**
 * A workspace's question sets (issue 40, docs/evaluation.md): made by those who may edit the
 * workspace, read by everyone who may see it, deleted with it.
 */
export interface QuestionSetDeps {
  questionSets: QuestionSetStore;
  workspaces: Pick<WorkspaceStore, 'getWorkspace'>;
}

/** The questions as given: a JSON list, or the text of an uploaded file in one of the formats. */
export type QuestionsInput =
  | { kind: 'list'; questions: readonly unknown[] }
  | { kind: 'file'; format: QuestionFormat; content: string };

export async function createQuestionSet(
  deps: QuestionSetDeps,
  principal: Principal,
  workspaceId: string,
  input: { name: string; questions: QuestionsInput },
): Promise<QuestionSet> {
  const workspace = await deps.workspaces.getWorkspace(principal, workspaceId);
  if (!workspace) throw errors.workspaceNotFound(workspaceId);
  requireEdit(principal, workspace);
  const result: Question[] | { line: number; message: string }[] =
    input.questions.kind === 'list'
      ? await checkQuestions(input.questions.questions)
      : await readQuestionFile(input.questions.format, input.questions.content);
  if (isProblems(result)) throw errors.invalidQuestions(result, QUESTION_LIMITS.problemsListed);
  const set = await deps.questionSets.insertQuestionSet({
    id: newId('qs'),
    accountId: principal.accountId,
    workspaceId,
    name: input.name,
    createdBy: principal.actor,
    questions: result,
  });
  if (!set) throw errors.workspaceNotFound(workspaceId);
  return set;
}

export async function listQuestionSets(
  deps: QuestionSetDeps,
  principal: Principal,
  workspaceId: string,
): Promise<QuestionSetSummary[]> {
  if (!(await deps.workspaces.getWorkspace(principal, workspaceId)))
    throw errors.workspaceNotFound(workspaceId);
  return deps.questionSets.listQuestionSets(principal.accountId, workspaceId);
}

/** Not found when the set's workspace is one the principal may not see, as when there is none. */
export async function getQuestionSet(
  deps: QuestionSetDeps,
  principal: Principal,
  questionSetId: string,
): Promise<QuestionSet> {
  const set = await deps.questionSets.getQuestionSet(principal.accountId, questionSetId);
  if (!set || !(await deps.workspaces.getWorkspace(principal, set.workspaceId)))
    throw errors.questionSetNotFound(questionSetId);
  return set;
}

export async function deleteQuestionSet(
  deps: QuestionSetDeps,
  principal: Principal,
  questionSetId: string,
): Promise<QuestionSetSummary> {
  const set = await deps.questionSets.getQuestionSet(principal.accountId, questionSetId);
  const workspace = set && (await deps.workspaces.getWorkspace(principal, set.workspaceId));
  if (!set || !workspace) throw errors.questionSetNotFound(questionSetId);
  requireEdit(principal, workspace);
  if (!(await deps.questionSets.deleteQuestionSet(principal.accountId, questionSetId)))
    throw errors.questionSetNotFound(questionSetId);
  const { questions: _, ...summary } = set;
  return summary;
}
