import { RunCancelledError, RunFailedError, RunPausedError, RunTimeoutError } from '../errors.js';
import { linkedController, sleep } from '../runtime.js';
import { type RequestOptions, validateTimeout } from '../transport.js';
import type { Answer, ReprocessResult, Run, RunProgress } from '../types.js';
import { type Api, id } from './api.js';

export interface WaitForRunOptions {
  /** How long to wait in ms before rejecting with RunTimeoutError. Default: 5 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with each progress record, e.g. to show `progress` (0–1) to a user. */
  onProgress?: (progress: RunProgress) => void;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 5 * 60_000;
const FIRST_POLL_DELAY_MS = 500;
const MAX_POLL_DELAY_MS = 5_000;

const runPath = (runId: string) => `/v1/runs/${id(runId, 'runId')}`;

/** A run's record and progress, waiting for it, and pausing, resuming, cancelling or repeating it. */
export class Runs {
  constructor(private readonly api: Api) {}

  getRun(runId: string, options: RequestOptions | undefined): Promise<Run> {
    return this.api.get(runPath(runId), options);
  }

  getRunProgress(runId: string, options: RequestOptions | undefined): Promise<RunProgress> {
    return this.api.get(`${runPath(runId)}/progress`, options);
  }

  async waitForRun(runId: string, options: WaitForRunOptions): Promise<RunProgress> {
    const timeoutMs = validateTimeout(options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS, 'waitForRun');
    id(runId, 'runId');
    const { controller, release } = linkedController(options.signal);
    const timer = setTimeout(() => controller.abort(new Error('wait timed out')), timeoutMs);
    let last: RunProgress | undefined;
    let delay = FIRST_POLL_DELAY_MS;
    try {
      for (;;) {
        last = await this.getRunProgress(runId, { signal: controller.signal });
        options.onProgress?.(last);
        switch (last.status) {
          case 'completed':
            return last;
          case 'failed':
            throw new RunFailedError(last);
          case 'paused':
            throw new RunPausedError(last);
          case 'cancelled':
            throw new RunCancelledError(last);
        }
        await sleep(delay, controller.signal);
        delay = Math.min(MAX_POLL_DELAY_MS, Math.round(delay * 1.5));
      }
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (controller.signal.aborted) throw new RunTimeoutError(runId, timeoutMs, last);
      throw err;
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  /** Pausing, resuming and cancelling change the run's state, so none is repeated automatically. */
  control(runId: string, action: 'pause' | 'resume' | 'cancel', options: RequestOptions | undefined) {
    return this.api.post<Run>(`${runPath(runId)}/${action}`, undefined, false, options);
  }

  listRuns(
    workspaceId: string,
    params: { limit?: number },
    options: RequestOptions | undefined,
  ): Promise<Answer<'listRuns', 200>> {
    const q = params.limit === undefined ? '' : `?limit=${params.limit}`;
    return this.api.get(`/v1/workspaces/${id(workspaceId, 'workspaceId')}/runs${q}`, options);
  }

  reprocessRun(
    runId: string,
    params: { statuses?: ('cancelled' | 'failed')[] },
    options: RequestOptions | undefined,
  ): Promise<ReprocessResult> {
    return this.api.post(`${runPath(runId)}/reprocess`, params, false, options);
  }
}
