import { z } from 'zod';

/** How the job engine retries a job whose handler failed: `limit` times, from `delaySeconds` on. */
export interface RetryPolicy {
  limit: number;
  delaySeconds: number;
  /** Each retry waits about twice as long as the one before. */
  backoff: boolean;
}

export interface JobDefinition<P extends z.ZodType> {
  /** The queue's name in the job engine (stored in its tables: never rename one). */
  name: string;
  payload: P;
  retry: RetryPolicy;
  /** At most one waiting job per key: enqueueing the same work twice while it waits is a no-op. */
  singletonKey: (payload: z.infer<P>) => string;
  /** Wait this long before the job may start, unless the sender says otherwise (folds a burst into one job). */
  startAfterSeconds?: number;
}

const job = <P extends z.ZodType>(definition: JobDefinition<P>) => definition;

/**
 * Every background job, declared once: its name, the payload it carries (checked when it is taken)
 * and its retry policy. The queue adapter creates queues from this table; handlers are safe to run
 * twice, since the service database, not the job, is the source of truth.
 */
export const JOBS = {
  processDocument: job({
    name: 'process-document',
    payload: z.object({ documentId: z.string().min(1) }),
    retry: { limit: 5, delaySeconds: 2, backoff: true },
    singletonKey: (p) => p.documentId,
  }),
  maintainWorkspace: job({
    name: 'maintain-workspace',
    // `urgent`: a run waits for this maintenance to complete it; one urgent job may wait beside one
    // scheduled for later (the removal of replaced versions, a minute on).
    payload: z.object({ workspaceId: z.string().min(1), urgent: z.boolean().optional() }),
    retry: { limit: 3, delaySeconds: 10, backoff: true },
    singletonKey: (p) => (p.urgent ? `${p.workspaceId}:urgent` : p.workspaceId),
    startAfterSeconds: 5,
  }),
  syncSource: job({
    name: 'sync-source',
    payload: z.object({ sourceId: z.string().min(1) }),
    // The sync's lease and run are in the service database; a retry of a failed handler lists again.
    retry: { limit: 3, delaySeconds: 10, backoff: true },
    singletonKey: (p) => p.sourceId,
  }),
};
