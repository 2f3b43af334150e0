import PgBoss from 'pg-boss';
import type { z } from 'zod';
import { JOBS, type JobDefinition, type JobHandlers } from '../../domain/jobs.js';
import type { JobQueue } from '../../domain/ports.js';
import { asUnavailable } from '../postgres/db.js';

const PROCESS_DOCUMENT = JOBS.processDocument.name;
const MAINTAIN_WORKSPACE = JOBS.maintainWorkspace.name;

/** pg-boss's options for a job's queue, from its declaration in jobs.ts. */
function queueOptions({ retry }: JobDefinition<z.ZodType>): Omit<PgBoss.Queue, 'name'> {
  return { retryLimit: retry.limit, retryDelay: retry.delaySeconds, retryBackoff: retry.backoff };
}

function sendOptions<P extends z.ZodType>(definition: JobDefinition<P>, payload: z.infer<P>) {
  const { startAfterSeconds } = definition;
  return {
    singletonKey: definition.singletonKey(payload),
    ...(startAfterSeconds === undefined ? {} : { startAfter: startAfterSeconds }),
  };
}

export interface PgBossQueueOptions {
  url: string;
  namespace: string;
  pollIntervalSeconds: number;
  onError: (err: Error) => void;
}

/**
 * Jobs in pg-boss, in its own database under the workflow namespace. Crash recovery does not depend
 * on job expiry: documents carry leases in the service database and a reconciler re-enqueues the
 * ones nobody holds. The `short` policy keeps at most one waiting job per document, so enqueueing
 * twice is harmless while a job is already active.
 */
export class PgBossQueue implements JobQueue {
  /** Replaced after a failed start: pg-boss 10 cannot be started again once a start has failed. */
  private boss: PgBoss;
  private started: Promise<void> | undefined;
  /** Document consumers running in this process (woken after each job; see startWorkers). */
  private readonly localWorkers: string[] = [];
  /** Handlers running in this process, so that stopping the consumers can wait for them. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly options: PgBossQueueOptions) {
    this.boss = this.createBoss();
  }

  private createBoss(): PgBoss {
    const boss = new PgBoss({
      connectionString: this.options.url,
      schema: this.options.namespace,
      application_name: 'docslurp-jobs',
      max: 4,
      // A long expiry: pg-boss abandons a handler that runs past it, and a large PDF may legitimately
      // take a while. Dead workers are detected by document leases instead.
      expireInHours: 6,
      retentionDays: 7,
      deleteAfterDays: 7,
      maintenanceIntervalSeconds: 60,
      monitorStateIntervalSeconds: 60,
    });
    boss.on('error', (err) => this.options.onError(err as Error));
    return boss;
  }

  /**
   * Installs or upgrades pg-boss's schema and creates the queues. Safe to call concurrently. When the
   * database is down this fails with DependencyUnavailable and the next call starts afresh, so a
   * process started before its database comes up once it does.
   */
  start(): Promise<void> {
    if (!this.started) {
      const boss = this.boss;
      const attempt = (async () => {
        await boss.start();
        for (const definition of Object.values(JOBS))
          await this.ensureQueue(definition.name, queueOptions(definition));
      })().catch(async (err: unknown) => {
        if (this.started === attempt) {
          this.started = undefined;
          this.boss = this.createBoss();
          await boss.stop({ graceful: false, wait: false }).catch(() => {});
        }
        throw asUnavailable(err);
      });
      this.started = attempt;
    }
    return this.started;
  }

  private async ensureQueue(name: string, options: Omit<PgBoss.Queue, 'name'>): Promise<void> {
    if (await this.boss.getQueue(name)) return;
    await this.boss.createQueue(name, { name, policy: 'short', ...options }).catch(async (err: unknown) => {
      if (!(await this.boss.getQueue(name))) throw err;
    });
  }

  async enqueueDocuments(documentIds: string[]): Promise<void> {
    await this.start();
    for (let i = 0; i < documentIds.length; i += 500) {
      const batch = documentIds.slice(i, i + 500);
      await this.boss.insert(
        batch.map((documentId) => ({
          name: PROCESS_DOCUMENT,
          data: { documentId },
          singletonKey: JOBS.processDocument.singletonKey({ documentId }),
        })),
      );
    }
  }

  async enqueueWorkspaceMaintenance(workspaceId: string): Promise<void> {
    await this.start();
    // Delayed a little (jobs.ts) so that a burst of finished documents folds into one optimisation.
    const payload = { workspaceId };
    await this.boss.send(MAINTAIN_WORKSPACE, payload, sendOptions(JOBS.maintainWorkspace, payload));
  }

  async startWorkers(handlers: JobHandlers, concurrency: number): Promise<void> {
    await this.start();
    const poll = { batchSize: 1, pollingIntervalSeconds: this.options.pollIntervalSeconds };
    // pg-boss 10 has no per-worker concurrency setting: each work() call is one sequential consumer.
    // Its loop also sleeps a full polling interval after every job; notifying the consumer when a job
    // is done makes it fetch the next one at once while the queue has work.
    for (let i = 0; i < concurrency; i++) {
      let id = '';
      id = await this.boss.work(PROCESS_DOCUMENT, poll, async ([job]) => {
        try {
          if (job) await this.handle(JOBS.processDocument, job, handlers.processDocument);
        } finally {
          if (id && this.localWorkers.includes(id)) this.boss.notifyWorker(id);
        }
      });
      this.localWorkers.push(id);
    }
    await this.boss.work(MAINTAIN_WORKSPACE, { batchSize: 1, pollingIntervalSeconds: 2 }, async ([job]) => {
      if (job) await this.handle(JOBS.maintainWorkspace, job, handlers.maintainWorkspace);
    });
  }

  /**
   * Runs a job's handler with its payload checked against the job's schema. A payload that does not
   * match is reported and dropped: retrying cannot fix it.
   */
  private async handle<P extends z.ZodType>(
    definition: JobDefinition<P>,
    job: PgBoss.Job<unknown>,
    handler: (payload: z.infer<P>) => Promise<void>,
  ): Promise<void> {
    const parsed = definition.payload.safeParse(job.data);
    if (!parsed.success) {
      this.options.onError(
        new Error(`job ${job.id} (${definition.name}) has an invalid payload: ${parsed.error.message}`),
      );
      return;
    }
    await this.track(handler(parsed.data));
  }

  async stopWorkers(): Promise<void> {
    this.localWorkers.length = 0;
    // offWork stops the polling loops without waiting for the job in hand; wait for those here.
    await this.boss.offWork(PROCESS_DOCUMENT);
    await this.boss.offWork(MAINTAIN_WORKSPACE);
    await Promise.allSettled([...this.inFlight]);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => {});
    return work;
  }

  async depth(): Promise<{ queued: number; active: number }> {
    await this.start();
    const queued = await this.boss.getQueueSize(PROCESS_DOCUMENT, { before: 'active' });
    const upToActive = await this.boss.getQueueSize(PROCESS_DOCUMENT, { before: 'completed' });
    return { queued, active: upToActive - queued };
  }

  async check(): Promise<void> {
    await this.start();
    await this.boss.getDb().executeSql('SELECT 1', []);
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    await this.started.catch(() => {});
    await this.boss.stop({ graceful: true, timeout: 10_000, wait: true });
  }
}
