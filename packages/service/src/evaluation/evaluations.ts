import type { JobQueue } from '../domain/ports.js';
import type { WorkspaceStore } from '../domain/stores.js';
import type { Principal } from '../domain/types.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { REQUEST_DEFAULTS } from '../search/request.js';
import type { SearchMode } from '../search/search.js';
import { type Comparison, compareOutcomes } from './compare.js';
import type {
  AnswerMode,
  EvaluationConfiguration,
  EvaluationRecord,
  EvaluationStore,
  OutcomeRow,
  QuestionSetStore,
} from './store.js';
import { FINISHED_EVALUATION } from './store.js';

/**
 * Evaluations (issue 40, docs/evaluation.md): a question set asked under one or more configurations,
 * as a job of the worker (runner.ts), scored by metrics.ts. An evaluation runs with its creator's view
 * and shows what that view found (documents, passages), so it is seen by its creator and by those who
 * see the whole account, and by nobody else: to them it does not exist.
 */

/** What this server can ask with: a configuration that asks for more is refused when it is made. */
export interface EvaluationCapabilities {
  embeddings: boolean;
  reranker: boolean;
  chatModel: boolean;
  /** The server's own choices, for what a configuration leaves out. */
  hybridWeight: number;
  maxTopK: number;
}

export interface EvaluationDeps {
  evaluations: EvaluationStore;
  questionSets: Pick<QuestionSetStore, 'getQuestionSet'>;
  workspaces: Pick<WorkspaceStore, 'getWorkspace'>;
  jobs: Pick<JobQueue, 'enqueue'>;
  capabilities: EvaluationCapabilities;
}

/** What a process configured with these can evaluate with: the HTTP layer's deps or the CLI's. */
export function evaluationDepsOf(deps: {
  evaluations: EvaluationStore;
  questionSets: Pick<QuestionSetStore, 'getQuestionSet'>;
  workspaces: Pick<WorkspaceStore, 'getWorkspace'>;
  jobs: Pick<JobQueue, 'enqueue'>;
  embeddings: unknown;
  rerank: unknown;
  chatModel: unknown;
  searchOptions: { hybridVectorWeight: number };
  config: { limits: { maxTopK: number } };
}): EvaluationDeps {
  return {
    evaluations: deps.evaluations,
    questionSets: deps.questionSets,
    workspaces: deps.workspaces,
    jobs: deps.jobs,
    capabilities: {
      embeddings: deps.embeddings !== undefined,
      reranker: deps.rerank !== undefined,
      chatModel: deps.chatModel !== undefined,
      hybridWeight: deps.searchOptions.hybridVectorWeight,
      maxTopK: deps.config.limits.maxTopK,
    },
  };
}

/** A configuration as asked for: every field may be left to the server. */
export interface ConfigurationInput {
  name?: string | undefined;
  search?:
    | {
        topK?: number | undefined;
        mode?: SearchMode | undefined;
        hybridWeight?: number | undefined;
        rerank?: boolean | undefined;
        maxChunksPerDocument?: number | undefined;
      }
    | undefined;
  /** Null: passages only. */
  answers?: { mode?: AnswerMode | undefined } | null | undefined;
}

export const EVALUATION_LIMITS = { configurations: 5 } as const;

/** Fills in the server's choices and refuses what it cannot do, naming what is missing. */
export function resolveConfigurations(
  inputs: readonly ConfigurationInput[] | undefined,
  can: EvaluationCapabilities,
): EvaluationConfiguration[] {
  const given = inputs && inputs.length > 0 ? inputs : [{ name: 'default' }];
  if (given.length > EVALUATION_LIMITS.configurations)
    throw errors.invalidRequest(
      `An evaluation compares at most ${EVALUATION_LIMITS.configurations} configurations; ${given.length} were given.`,
    );
  const names = new Set<string>();
  return given.map((c, i) => {
    const name = c.name?.trim() || (given.length === 1 ? 'default' : `configuration ${i + 1}`);
    if (names.has(name))
      throw errors.invalidRequest(`Two configurations are named "${name}": name each once.`);
    names.add(name);
    const mode = c.search?.mode ?? (can.embeddings ? 'hybrid' : 'lexical');
    if (mode !== 'lexical' && !can.embeddings)
      throw errors.configurationUnavailable(
        name,
        `${mode} search needs an embedding model (EMBEDDINGS_PROVIDER), and this server has none`,
      );
    const rerank = c.search?.rerank ?? can.reranker;
    if (rerank && !can.reranker)
      throw errors.configurationUnavailable(
        name,
        'reranking needs a reranker (RERANK_PROVIDER), and this server has none',
      );
    const answerMode =
      c.answers === null ? null : (c.answers?.mode ?? (can.chatModel ? 'model' : 'extractive'));
    if (answerMode === 'model' && !can.chatModel)
      throw errors.configurationUnavailable(
        name,
        'answers by a model need a chat model (LLM_BASE_URL and LLM_MODEL), and this server has none',
      );
    const topK = c.search?.topK ?? REQUEST_DEFAULTS.searchTopK;
    if (topK > can.maxTopK)
      throw errors.invalidRequest(
        `topK is at most ${can.maxTopK}; configuration "${name}" asks for ${topK}.`,
      );
    return {
      name,
      search: {
        topK,
        mode,
        hybridWeight: c.search?.hybridWeight ?? can.hybridWeight,
        rerank,
        maxChunksPerDocument: c.search?.maxChunksPerDocument ?? null,
      },
      answers: answerMode ? { mode: answerMode } : null,
    };
  });
}

/** The view the questions are asked with: the creator's when a user made it, else the account's. */
function ownerOf(principal: Principal): EvaluationRecord['owner'] {
  return principal.userId ? { kind: 'user', userId: principal.userId } : { kind: 'account' };
}

/** Whether the principal sees this evaluation: its creator, or anyone who sees the whole account. */
function sees(principal: Principal, e: EvaluationRecord): boolean {
  if (e.accountId !== principal.accountId) return false;
  if (!principal.member) return true;
  return e.owner.kind === 'user' && e.owner.userId === principal.userId;
}

export async function createEvaluation(
  deps: EvaluationDeps,
  principal: Principal,
  input: {
    questionSetId: string;
    name?: string | undefined;
    configurations?: ConfigurationInput[] | undefined;
  },
): Promise<EvaluationRecord> {
  const set = await deps.questionSets.getQuestionSet(principal.accountId, input.questionSetId);
  if (!set || !(await deps.workspaces.getWorkspace(principal, set.workspaceId)))
    throw errors.questionSetNotFound(input.questionSetId);
  const configurations = resolveConfigurations(input.configurations, deps.capabilities);
  const evaluation = await deps.evaluations.insertEvaluation({
    id: newId('ev'),
    accountId: principal.accountId,
    workspaceId: set.workspaceId,
    questionSetId: set.id,
    questionSetName: set.name,
    name: input.name?.trim() || set.name,
    configurations,
    owner: ownerOf(principal),
    createdBy: principal.actor,
    total: set.questions.length * configurations.length,
  });
  if (!evaluation) throw errors.questionSetNotFound(input.questionSetId);
  await deps.jobs.enqueue('runEvaluation', { evaluationId: evaluation.id });
  return evaluation;
}

export async function getEvaluation(
  deps: Pick<EvaluationDeps, 'evaluations'>,
  principal: Principal,
  id: string,
): Promise<EvaluationRecord> {
  const e = await deps.evaluations.getEvaluation(principal.accountId, id);
  if (!e || !sees(principal, e)) throw errors.evaluationNotFound(id);
  return e;
}

export async function listEvaluations(
  deps: Pick<EvaluationDeps, 'evaluations' | 'workspaces'>,
  principal: Principal,
  workspaceId: string,
): Promise<EvaluationRecord[]> {
  if (!(await deps.workspaces.getWorkspace(principal, workspaceId)))
    throw errors.workspaceNotFound(workspaceId);
  return deps.evaluations.listEvaluations(
    principal.accountId,
    workspaceId,
    principal.member ? principal.userId : undefined,
  );
}

export async function cancelEvaluation(
  deps: Pick<EvaluationDeps, 'evaluations'>,
  principal: Principal,
  id: string,
): Promise<EvaluationRecord> {
  const e = await getEvaluation(deps, principal, id);
  if (FINISHED_EVALUATION.includes(e.status))
    throw errors.invalidEvaluationState(
      `Evaluation "${id}" is ${e.status} already; only a queued or running one can be cancelled.`,
    );
  const after = await deps.evaluations.cancelEvaluation(principal.accountId, id);
  if (!after) throw errors.evaluationNotFound(id);
  return after;
}

export async function deleteEvaluation(
  deps: Pick<EvaluationDeps, 'evaluations'>,
  principal: Principal,
  id: string,
): Promise<EvaluationRecord> {
  const e = await getEvaluation(deps, principal, id);
  if (!(await deps.evaluations.deleteEvaluation(principal.accountId, id)))
    throw errors.evaluationNotFound(id);
  return e;
}

/** What each question got, in order: one configuration's (by name), or every one's. */
export async function evaluationOutcomes(
  deps: Pick<EvaluationDeps, 'evaluations'>,
  principal: Principal,
  id: string,
  page: { configuration?: string | undefined; offset: number; limit: number },
): Promise<{ evaluation: EvaluationRecord; outcomes: OutcomeRow[] }> {
  const evaluation = await getEvaluation(deps, principal, id);
  let configuration: number | undefined;
  if (page.configuration !== undefined) {
    configuration = evaluation.configurations.findIndex((c) => c.name === page.configuration);
    if (configuration < 0)
      throw errors.invalidRequest(
        `Evaluation "${id}" has no configuration "${page.configuration}"; it has ${evaluation.configurations.map((c) => `"${c.name}"`).join(', ')}.`,
      );
  }
  const outcomes = await deps.evaluations.listOutcomes(id, {
    ...(configuration === undefined ? {} : { configuration }),
    offset: page.offset,
    limit: page.limit,
  });
  return { evaluation, outcomes };
}

/** Seconds left at the pace so far; null before the first question or once finished. */
export function etaSeconds(e: EvaluationRecord, now = Date.now()): number | null {
  if (e.status !== 'running' || !e.startedAt || e.done === 0) return null;
  const perQuestion = (now - e.startedAt.getTime()) / e.done;
  return Math.max(0, Math.round((perQuestion * (e.total - e.done)) / 1000));
}

/**
 * Two completed evaluations side by side: each configuration of `a` with the one of `b` of the same
 * name (or the only one of each), every metric with its difference and interval, and the questions
 * whose checks changed. Questions are paired by their place in the set, so both must have asked the
 * same set for the per-question part; metrics compare either way.
 */
export async function compareEvaluations(
  deps: Pick<EvaluationDeps, 'evaluations'>,
  principal: Principal,
  aId: string,
  bId: string,
): Promise<Comparison> {
  const [a, b] = [await getEvaluation(deps, principal, aId), await getEvaluation(deps, principal, bId)];
  for (const e of [a, b])
    if (e.status !== 'completed')
      throw errors.invalidEvaluationState(
        `Evaluation "${e.id}" is ${e.status}; only completed evaluations are compared.`,
      );
  const pairs: [number, number][] =
    a.configurations.length === 1 && b.configurations.length === 1
      ? [[0, 0]]
      : a.configurations.flatMap((c, i) => {
          const j = b.configurations.findIndex((d) => d.name === c.name);
          return j < 0 ? [] : [[i, j] as [number, number]];
        });
  if (pairs.length === 0)
    throw errors.invalidRequest(
      `Evaluations "${a.id}" and "${b.id}" have no configuration of the same name to compare (and more than one each).`,
    );
  const all = async (id: string) =>
    deps.evaluations.listOutcomes(id, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
  const [aOutcomes, bOutcomes] = [await all(a.id), await all(b.id)];
  return compareOutcomes(a, b, pairs, aOutcomes, bOutcomes);
}
