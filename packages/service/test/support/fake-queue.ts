import { JOBS, type JobName, type JobPayload } from '../../src/domain/jobs.js';
import type { EnqueueOptions, JobQueue } from '../../src/domain/ports.js';

export interface SentJob<K extends JobName = JobName> {
  name: K;
  payload: JobPayload<K>;
  options: EnqueueOptions;
}

/**
 * The sending side of the job queue in memory, for unit tests of code that enqueues: every job sent,
 * in order, each payload checked against its job's schema as the worker that takes it would.
 */
export class MemoryJobQueue implements Pick<JobQueue, 'enqueue' | 'enqueueMany' | 'depth'> {
  private readonly jobs: SentJob[] = [];
  /** When set, enqueueing fails with it (a job engine that is down). */
  failure: Error | undefined;
  /** Jobs waiting in the engine by kind, as depth() reports them (the test says how many). */
  queued: Partial<Record<JobName, number>> = {};

  async depth(name: JobName): Promise<{ queued: number; active: number }> {
    return { queued: this.queued[name] ?? 0, active: 0 };
  }

  async enqueue<K extends JobName>(name: K, payload: JobPayload<K>, options?: EnqueueOptions): Promise<void> {
    await this.enqueueMany(name, [payload], options);
  }

  async enqueueMany<K extends JobName>(
    name: K,
    payloads: readonly JobPayload<K>[],
    options: EnqueueOptions = {},
  ): Promise<void> {
    if (this.failure) throw this.failure;
    for (const payload of payloads)
      this.jobs.push({ name, payload: JOBS[name].payload.parse(payload), options });
  }

  /** The jobs of one kind sent so far, in order. */
  sent<K extends JobName>(name: K): SentJob<K>[] {
    return this.jobs.filter((job): job is SentJob<K> => job.name === name);
  }
}
