import { sessionPrincipal } from '../access/principals.js';
import { type AnswerDeps, answerQuestion } from '../answers/answer.js';
import type { Log } from '../domain/log.js';
import type { UserStore } from '../domain/stores.js';
import type { Principal } from '../domain/types.js';
import { AppError } from '../errors.js';
import { DEFAULT_SEARCH, searchPassages } from '../search/search.js';
import { checkQuestion, type ScoredQuestion, summarizeScored, summarizeScoredGroups } from './metrics.js';
import type { Question } from './questions.js';
import type {
  ConfigurationResults,
  EvaluationConfiguration,
  EvaluationRecord,
  EvaluationStore,
  OutcomeRow,
  QuestionSetStore,
  StoredOutcome,
} from './store.js';

/**
 * Runs an evaluation (the worker's `runEvaluation` job, or the CLI in-process): asks each question of
 * the set under each configuration through the same operations as search and chat, as the evaluation's
 * owner, checks what came back, and keeps it question by question. The evaluation's row is the job's
 * state: whoever holds its lease asks what has not been asked yet, so a worker that dies mid-way costs
 * the questions of its last batch, and a cancellation stops it at the next one.
 */

export interface EvaluationRunnerDeps extends AnswerDeps {
  evaluations: EvaluationStore;
  questionSets: Pick<QuestionSetStore, 'getQuestionSet'>;
  users: Pick<UserStore, 'getUser'>;
  log: Pick<Log, 'info' | 'warn'>;
}

export interface RunnerOptions {
  leaseSeconds: number;
  /** Outcomes kept (and the lease renewed, a cancellation seen) after this many questions or ms. */
  batchQuestions: number;
  batchMs: number;
  /** A question whose asking fails (a model down) is asked again this many times, this long apart. */
  retries: number;
  retryDelayMs: number;
  /**
   * Questions asked at once. Much of a question's time is the index's, off the event loop, so two at
   * a time keep both cores of a small host busy while searches are still served between them.
   */
  concurrency: number;
}

export const RUNNER_DEFAULTS: RunnerOptions = {
  leaseSeconds: 60,
  batchQuestions: 20,
  batchMs: 2000,
  retries: 2,
  retryDelayMs: 1000,
  concurrency: 2,
};

class OwnerGone extends Error {}

/** Whose view the questions are asked with, as it is now (a user's role and groups are read afresh). */
async function principalOf(deps: EvaluationRunnerDeps, e: EvaluationRecord): Promise<Principal> {
  if (e.owner.kind === 'account')
    return {
      accountId: e.accountId,
      scopes: new Set(['search']),
      keyId: undefined,
      userId: undefined,
      role: undefined,
      member: undefined,
      actor: e.createdBy,
    };
  const user = e.owner.userId ? await deps.users.getUser(e.accountId, e.owner.userId) : undefined;
  if (!user) throw new OwnerGone();
  return sessionPrincipal(user);
}

/** The deps a configuration asks with: its reranking, fusion weight and answerer. */
function depsFor(deps: EvaluationRunnerDeps, c: EvaluationConfiguration): AnswerDeps {
  return {
    ...deps,
    rerank: c.search.rerank ? deps.rerank : undefined,
    searchOptions: { ...(deps.searchOptions ?? DEFAULT_SEARCH), hybridVectorWeight: c.search.hybridWeight },
    chatModel: c.answers?.mode === 'model' ? deps.chatModel : undefined,
  };
}

async function ask(
  deps: AnswerDeps,
  principal: Principal,
  e: EvaluationRecord,
  c: EvaluationConfiguration,
  question: Question,
): Promise<StoredOutcome> {
  const t0 = performance.now();
  const hits = await searchPassages(deps, principal, {
    workspaceId: e.workspaceId,
    q: question.q,
    history: question.history,
    topK: c.search.topK,
    mode: c.search.mode,
    maxChunksPerDocument: c.search.maxChunksPerDocument ?? undefined,
  });
  const searchMs = performance.now() - t0;
  let answer: StoredOutcome['answer'] = null;
  let chatMs: number | null = null;
  let given: Parameters<typeof checkQuestion>[0]['answer'];
  if (c.answers) {
    const t1 = performance.now();
    const a = await answerQuestion(deps, principal, {
      workspaceId: e.workspaceId,
      q: question.q,
      history: question.history,
      // As chat draws its answer by default (REQUEST_DEFAULTS.answerTopK).
      mode: c.search.mode,
    });
    chatMs = performance.now() - t1;
    const declined = a.kind === 'declined';
    given = {
      text: a.answer,
      declined,
      citations: a.citations.map((x) => ({
        n: x.n,
        documentId: x.documentId,
        filename: x.filename,
        page: x.page,
        text: x.text,
      })),
    };
    answer = {
      text: a.answer,
      kind: a.kind,
      declined,
      citations: a.citations.map((x) => ({
        n: x.n,
        documentId: x.documentId,
        filename: x.filename,
        page: x.page,
        chunkId: x.chunkId,
      })),
    };
  }
  const retrieved = hits.map((h) => ({
    documentId: h.citation.documentId,
    filename: h.citation.filename,
    page: h.citation.page,
    text: h.text,
    score: h.score,
  }));
  return {
    q: question.q,
    language: question.language,
    tags: question.tags,
    retrieved: hits.map((h, i) => ({
      rank: i + 1,
      documentId: h.citation.documentId,
      filename: h.citation.filename,
      page: h.citation.page,
      score: h.score,
      chunkId: h.citation.chunkId,
    })),
    answer,
    searchMs: Math.round(searchMs * 100) / 100,
    chatMs: chatMs === null ? null : Math.round(chatMs * 100) / 100,
    checks: checkQuestion({ question, retrieved, searchMs, answer: given, chatMs: chatMs ?? undefined }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each configuration's metrics from what was kept. */
export function resultsOf(e: EvaluationRecord, rows: readonly OutcomeRow[]): ConfigurationResults[] {
  return e.configurations.map((c, i) => {
    const scoredRows: ScoredQuestion[] = rows
      .filter((r) => r.configuration === i)
      .map((r) => ({
        question: { language: r.outcome.language, tags: r.outcome.tags },
        checks: r.outcome.checks,
        searchMs: r.outcome.searchMs,
        chatMs: r.outcome.chatMs,
      }));
    return {
      configuration: c.name,
      metrics: summarizeScored(scoredRows),
      ...summarizeScoredGroups(scoredRows),
    };
  });
}

/** Runs the evaluation as `holder`; returns how it stands when this call lets go of it. */
export async function runEvaluation(
  deps: EvaluationRunnerDeps,
  evaluationId: string,
  holder: string,
  options: RunnerOptions = RUNNER_DEFAULTS,
): Promise<'completed' | 'failed' | 'cancelled' | 'lost' | 'not-taken'> {
  const e = await deps.evaluations.claimEvaluation(evaluationId, holder, options.leaseSeconds);
  if (!e) return 'not-taken';
  const fail = async (code: string, message: string) => {
    await deps.evaluations.finishEvaluation(e.id, holder, { status: 'failed', error: { code, message } });
    deps.log.warn({ evaluationId: e.id, code, message }, 'evaluation failed');
    return 'failed' as const;
  };
  let principal: Principal;
  try {
    principal = await principalOf(deps, e);
  } catch (err) {
    if (!(err instanceof OwnerGone)) throw err;
    return fail(
      'owner_removed',
      "The user who started this evaluation was removed; it asks with nobody's view.",
    );
  }
  const set = e.questionSetId
    ? await deps.questionSets.getQuestionSet(e.accountId, e.questionSetId)
    : undefined;
  if (!set)
    return fail(
      'question_set_deleted',
      `Question set "${e.questionSetName}" was deleted before the evaluation finished.`,
    );

  const asked = await deps.evaluations.askedOutcomes(e.id);
  let pending: OutcomeRow[] = [];
  let flushedAt = Date.now();
  const flush = async () => {
    const status = await deps.evaluations.recordOutcomes(e.id, holder, options.leaseSeconds, pending);
    pending = [];
    flushedAt = Date.now();
    return status;
  };
  /** A question asked, retried while the service says why it failed; the last such error is kept. */
  const askWithRetries = async (
    cdeps: AnswerDeps,
    c: EvaluationConfiguration,
    question: Question,
  ): Promise<StoredOutcome | AppError> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await ask(cdeps, principal, e, c, question);
      } catch (err) {
        // What the service says about a question (a model down, the workspace gone) ends the
        // evaluation with its reason once retries are spent; anything else (the database) is the
        // job's to retry, from where it stopped.
        if (!(err instanceof AppError)) throw err;
        if (attempt >= options.retries) return err;
        await sleep(options.retryDelayMs);
      }
    }
  };
  const todo = e.configurations.flatMap((c, i) => {
    const cdeps = depsFor(deps, c);
    return set.questions.flatMap((question, ordinal) =>
      asked.has(`${i}:${ordinal}`) ? [] : [{ i, c, cdeps, question, ordinal }],
    );
  });
  for (let at = 0; at < todo.length; at += options.concurrency) {
    const group = todo.slice(at, at + options.concurrency);
    const outcomes = await Promise.all(group.map((t) => askWithRetries(t.cdeps, t.c, t.question)));
    // What was asked is kept, even when another question of the group failed.
    for (const [k, outcome] of outcomes.entries())
      if (!(outcome instanceof AppError))
        pending.push({ configuration: group[k]!.i, ordinal: group[k]!.ordinal, outcome });
    const failed = outcomes.findIndex((o) => o instanceof AppError);
    if (failed >= 0) {
      const t = group[failed]!;
      const err = outcomes[failed] as AppError;
      if (pending.length) await flush();
      return fail(
        err.code,
        `Question ${t.ordinal + 1} ("${t.question.q.slice(0, 80)}") could not be asked in configuration "${t.c.name}": ${err.message}`,
      );
    }
    if (pending.length >= options.batchQuestions || Date.now() - flushedAt >= options.batchMs) {
      const status = await flush();
      if (status === 'lost') return 'lost';
      if (status === 'cancelled') return 'cancelled';
    }
  }
  if (pending.length) {
    const status = await flush();
    if (status === 'lost') return 'lost';
    if (status === 'cancelled') return 'cancelled';
  }
  const rows = await deps.evaluations.listOutcomes(e.id, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
  const results = resultsOf(e, rows);
  if (!(await deps.evaluations.finishEvaluation(e.id, holder, { status: 'completed', results })))
    return 'lost';
  deps.log.info({ evaluationId: e.id, questions: rows.length }, 'evaluation completed');
  return 'completed';
}
