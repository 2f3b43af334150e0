import { EvaluationCancelledError, EvaluationFailedError, EvaluationTimeoutError } from '../errors.js';
import { linkedController, sleep } from '../runtime.js';
import { type RequestOptions, validateTimeout } from '../transport.js';
import type {
  Evaluation,
  EvaluationComparison,
  EvaluationOutcome,
  EvaluationOutcomePage,
  Sent,
} from '../types.js';
import { type Api, id } from './api.js';
import { DEFAULT_WAIT_TIMEOUT_MS } from './runs.js';

/** `POST /v1/evaluations`: a question set and up to five configurations to ask it under. */
export type CreateEvaluationParams = Sent<'createEvaluation'>;
/** One way of asking the questions; every field may be left to the server. */
export type EvaluationConfigurationInput = NonNullable<CreateEvaluationParams['configurations']>[number];

export interface ListEvaluationQuestionsParams {
  /** One configuration's outcomes, by name (default: every one's). */
  configuration?: string;
  offset?: number;
  /** At most 500 (default 100). */
  limit?: number;
}

export interface WaitForEvaluationOptions {
  /** First poll interval in ms (it grows by half up to 5 s). Default: 500. */
  intervalMs?: number;
  /** How long to wait in ms before rejecting with EvaluationTimeoutError. Default: 5 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with the evaluation at each poll, e.g. to show `progress.done / progress.total`. */
  onProgress?: (evaluation: Evaluation) => void;
}

const FIRST_POLL_DELAY_MS = 500;
const MAX_POLL_DELAY_MS = 5_000;

const evaluationPath = (evaluationId: string) => `/v1/evaluations/${id(evaluationId, 'evaluationId')}`;

/**
 * Evaluations of a workspace's question sets: `create` (a job; follow it with `wait`), `get`, `list`,
 * `questions` (what each question got, a page at a time, or all of them with `allQuestions`),
 * `cancel`, `delete`, and `compare` (one against a baseline).
 */
export class Evaluations {
  constructor(private readonly api: Api) {}

  /** Queues the evaluation (status `queued`). Not retried: a second call would start a second one. */
  create(params: CreateEvaluationParams, options?: RequestOptions): Promise<Evaluation> {
    return this.api.post('/v1/evaluations', params satisfies Sent<'createEvaluation'>, false, options);
  }

  /** Its status and progress and, once completed, `results`: the metrics per configuration. */
  get(evaluationId: string, options?: RequestOptions): Promise<Evaluation> {
    return this.api.get(evaluationPath(evaluationId), options);
  }

  /** The workspace's evaluations the caller may see, newest first. */
  async list(workspaceId: string, options?: RequestOptions): Promise<Evaluation[]> {
    return (
      await this.api.get<{ evaluations: Evaluation[] }>(
        `/v1/workspaces/${id(workspaceId, 'workspaceId')}/evaluations`,
        options,
      )
    ).evaluations;
  }

  /** One page of what each question got; pass `nextOffset` as `offset` for the next (null on the last). */
  questions(
    evaluationId: string,
    params: ListEvaluationQuestionsParams = {},
    options?: RequestOptions,
  ): Promise<EvaluationOutcomePage> {
    const query = new URLSearchParams();
    if (params.configuration !== undefined) query.set('configuration', params.configuration);
    if (params.offset !== undefined) query.set('offset', String(params.offset));
    if (params.limit !== undefined) query.set('limit', String(params.limit));
    const q = query.toString() ? `?${query}` : '';
    return this.api.get(`${evaluationPath(evaluationId)}/questions${q}`, options);
  }

  /** Every outcome, page after page (`limit` per request), for `for await`. */
  async *allQuestions(
    evaluationId: string,
    params: Omit<ListEvaluationQuestionsParams, 'offset'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<EvaluationOutcome> {
    let offset: number | null = 0;
    while (offset !== null) {
      const page: EvaluationOutcomePage = await this.questions(evaluationId, { ...params, offset }, options);
      yield* page.questions;
      offset = page.nextOffset;
    }
  }

  /** Stops a queued or running evaluation; what it asked so far stays readable. Not retried. */
  cancel(evaluationId: string, options?: RequestOptions): Promise<Evaluation> {
    return this.api.post(`${evaluationPath(evaluationId)}/cancel`, undefined, false, options);
  }

  /** Deletes it and what its questions got; resolves with the evaluation deleted. */
  delete(evaluationId: string, options?: RequestOptions): Promise<Evaluation> {
    return this.api.delete(evaluationPath(evaluationId), options);
  }

  /**
   * `otherId` against `baselineId` (both completed): each metric of each configuration as `a`
   * (baseline), `b` and `difference` (b − a, with its 95 % interval), and the questions that changed.
   */
  compare(baselineId: string, otherId: string, options?: RequestOptions): Promise<EvaluationComparison> {
    return this.api.get(`${evaluationPath(baselineId)}/compare/${id(otherId, 'otherId')}`, options);
  }

  /**
   * Polls the evaluation, with growing intervals, until it completes, and resolves with it (its
   * `results` filled in). Rejects with EvaluationFailedError or EvaluationCancelledError (each
   * carrying the evaluation), or EvaluationTimeoutError after `timeoutMs` (the evaluation carries on).
   */
  async wait(evaluationId: string, options: WaitForEvaluationOptions = {}): Promise<Evaluation> {
    const timeoutMs = validateTimeout(options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS, 'wait');
    id(evaluationId, 'evaluationId');
    const { controller, release } = linkedController(options.signal);
    const timer = setTimeout(() => controller.abort(new Error('wait timed out')), timeoutMs);
    let last: Evaluation | undefined;
    let delay = options.intervalMs ?? FIRST_POLL_DELAY_MS;
    try {
      for (;;) {
        last = await this.get(evaluationId, { signal: controller.signal });
        options.onProgress?.(last);
        switch (last.status) {
          case 'completed':
            return last;
          case 'failed':
            throw new EvaluationFailedError(last);
          case 'cancelled':
            throw new EvaluationCancelledError(last);
        }
        await sleep(delay, controller.signal);
        delay = Math.min(Math.max(MAX_POLL_DELAY_MS, delay), Math.round(delay * 1.5));
      }
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (controller.signal.aborted) throw new EvaluationTimeoutError(evaluationId, timeoutMs, last);
      throw err;
    } finally {
      clearTimeout(timer);
      release();
    }
  }
}
