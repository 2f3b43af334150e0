import { z } from 'zod';

/** How the job engine retries a job whose handler failed: `limit` times, from `delaySeconds` on. */
export interface RetryPolicy {
  limit: number;
  delaySeconds: number;
  /** Each retry waits about twice as long as the one before. */
  backoff: boolean;
}

export interface JobDefinition<P extends z.ZodType, Batched extends boolean = boolean> {
  /** The queue's name in the job engine (stored in its tables: never rename one). */
  name: string;
  payload: P;
  retry: RetryPolicy;
  /** At most one waiting job per key: enqueueing the same work twice while it waits is a no-op. */
  singletonKey: (payload: z.infer<P>) => string;
  /** Wait this long before the job may start, unless the sender says otherwise (folds a burst into one job). */
  startAfterSeconds?: number | ((payload: z.infer<P>) => number);
  /**
   * Taken in batches: each of the worker's consumers (WorkerOptions.concurrency) takes up to
   * `batchSize` jobs at once, hands them to the handler together and looks for more as soon as it
   * is done, so a backlog is worked through without a polling pause between batches. Otherwise one
   * consumer takes one job at a time.
   */
  batched?: Batched;
  /** How often an idle consumer looks for a job (the worker's polling interval by default). */
  pollSeconds?: number;
  /**
   * Started when a consumer next looks, not at once: a job that may start now wakes the consumers in
   * the sending process (a worker's own jobs, and uploads in embedded mode), unless its queue is paced
   * and the sender does not ask (EnqueueOptions.wake).
   */
  paced?: boolean;
}

const job = <P extends z.ZodType, B extends boolean = false>(definition: JobDefinition<P, B>) => definition;

/**
 * Every background job, declared once: its name, the payload it carries (checked when it is taken),
 * its retry policy and how the worker takes it. The queue adapter creates queues and consumers from
 * this table; enqueueing and the handler map are typed by it. Handlers are safe to run twice, since
 * the service database, not the job, is the source of truth.
 */
export const JOBS = {
  processDocument: job({
    name: 'process-document',
    payload: z.object({ documentId: z.string().min(1) }),
    retry: { limit: 5, delaySeconds: 2, backoff: true },
    singletonKey: (p) => p.documentId,
    batched: true,
  }),
  maintainWorkspace: job({
    name: 'maintain-workspace',
    // `urgent`: a run waits for this maintenance to complete it; one urgent job may wait beside one
    // scheduled for later (the removal of replaced versions, a minute on), and it starts at once.
    payload: z.object({ workspaceId: z.string().min(1), urgent: z.boolean().optional() }),
    retry: { limit: 3, delaySeconds: 10, backoff: true },
    singletonKey: (p) => (p.urgent ? `${p.workspaceId}:urgent` : p.workspaceId),
    startAfterSeconds: (p) => (p.urgent ? 0 : 5),
    // Each optimisation costs about half a second of CPU on a workspace of a few thousand passages,
    // and during a bulk ingestion every batch asks for one: looked for every 2 s, so that a burst
    // folds in a few, and woken only when the worker has nothing else queued (the burst's end).
    pollSeconds: 2,
    paced: true,
  }),
  syncSource: job({
    name: 'sync-source',
    payload: z.object({ sourceId: z.string().min(1) }),
    // The sync's lease and run are in the service database; a retry of a failed handler lists again.
    retry: { limit: 3, delaySeconds: 10, backoff: true },
    singletonKey: (p) => p.sourceId,
    // Taken by several consumers of a worker (WORKER_SYNC_CONCURRENCY), shared among accounts by the
    // handler (sources/sync.ts, SyncSlots).
  }),
  runEvaluation: job({
    name: 'run-evaluation',
    payload: z.object({ evaluationId: z.string().min(1) }),
    // The evaluation's row holds its state and lease (evaluation/runner.ts): a retry asks what is left.
    retry: { limit: 3, delaySeconds: 10, backoff: true },
    singletonKey: (p) => p.evaluationId,
  }),
};

export type JobName = keyof typeof JOBS;
export type JobPayload<K extends JobName> = z.infer<(typeof JOBS)[K]['payload']>;

/** What runs a job when the worker takes it: the payloads of a batch together for a batched job. */
type JobHandler<K extends JobName> = (typeof JOBS)[K] extends { batched?: true }
  ? (payloads: JobPayload<K>[]) => Promise<void>
  : (payload: JobPayload<K>) => Promise<void>;

/** One handler per job of the table, each next to its feature; the worker wires them. */
export type JobHandlers = { [K in JobName]: JobHandler<K> };

/** How long a job waits before it may start, unless its sender says otherwise. */
export function startAfterSeconds<P extends z.ZodType>(
  definition: JobDefinition<P>,
  payload: z.infer<P>,
): number {
  const wait = definition.startAfterSeconds;
  return typeof wait === 'function' ? wait(payload) : (wait ?? 0);
}
