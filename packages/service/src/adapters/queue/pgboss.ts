import PgBoss from 'pg-boss';
import type { z } from 'zod';
import { JOBS, type JobDefinition } from '../../domain/jobs.js';
import type { JobHandlers, JobQueue, WorkerOptions } from '../../domain/ports.js';
import { asUnavailable } from '../postgres/db.js';

const PROCESS_DOCUMENT = JOBS.processDocument.name;
const MAINTAIN_WORKSPACE = JOBS.maintainWorkspace.name;
const SYNC_SOURCE = JOBS.syncSource.name;

/** pg-boss's options for a job's queue, from its declaration in jobs.ts. */
function queueOptions({ retry }: JobDefinition<z.ZodType>): Omit<PgBoss.Queue, 'name'> {
  return { retryLimit: retry.limit, retryDelay: retry.delaySeconds, retryBackoff: retry.backoff };
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

  async enqueueDocuments(documentIds: string[], options: { ahead?: boolean } = {}): Promise<void> {
    await this.start();
    // pg-boss takes jobs by priority first, then in the order they were created.
    const priority = options.ahead ? 1 : 0;
    for (let i = 0; i < documentIds.length; i += 500) {
      const batch = documentIds.slice(i, i + 500);
      await this.boss.insert(
        batch.map((documentId) => ({
          name: PROCESS_DOCUMENT,
          data: { documentId },
          singletonKey: JOBS.processDocument.singletonKey({ documentId }),
          priority,
        })),
      );
    }
  }

  async enqueueWorkspaceMaintenance(
    workspaceId: string,
    options: { delaySeconds?: number; urgent?: boolean } = {},
  ): Promise<void> {
    await this.start();
    // Delayed a little (jobs.ts) so that a burst of finished documents folds into one optimisation;
    // while one waits, sending another is a no-op (one waiting job per workspace, and one urgent one).
    const payload = options.urgent ? { workspaceId, urgent: true } : { workspaceId };
    const job = JOBS.maintainWorkspace;
    await this.boss.send(MAINTAIN_WORKSPACE, payload, {
      singletonKey: job.singletonKey(payload),
      startAfter: options.delaySeconds ?? (options.urgent ? 0 : (job.startAfterSeconds ?? 0)),
    });
  }

  async enqueueSourceSync(sourceId: string): Promise<void> {
    await this.start();
    const payload = { sourceId };
    await this.boss.send(SYNC_SOURCE, payload, { singletonKey: JOBS.syncSource.singletonKey(payload) });
  }

  async startWorkers(handlers: JobHandlers, options: WorkerOptions): Promise<void> {
    await this.start();
    const poll = { batchSize: options.batchSize, pollingIntervalSeconds: this.options.pollIntervalSeconds };
    // pg-boss 10 has no per-worker concurrency setting: each work() call is one sequential consumer.
    // Its loop also sleeps a full polling interval after every job; notifying the consumer when a job
    // is done makes it fetch the next one at once while the queue has work. The jobs a consumer takes
    // at once complete together, or fail together when the handler throws (and are retried).
    for (let i = 0; i < options.concurrency; i++) {
      let id = '';
      id = await this.boss.work(PROCESS_DOCUMENT, poll, async (jobs) => {
        try {
          const payloads = this.payloadsOf(JOBS.processDocument, jobs);
          if (payloads.length) await this.track(handlers.processDocuments(payloads.map((p) => p.documentId)));
        } finally {
          if (id && this.localWorkers.includes(id)) this.boss.notifyWorker(id);
        }
      });
      this.localWorkers.push(id);
    }
    await this.boss.work(MAINTAIN_WORKSPACE, { batchSize: 1, pollingIntervalSeconds: 2 }, async (jobs) => {
      const [payload] = this.payloadsOf(JOBS.maintainWorkspace, jobs);
      if (payload) await this.track(handlers.maintainWorkspace(payload.workspaceId));
    });
    await this.boss.work(
      SYNC_SOURCE,
      { batchSize: 1, pollingIntervalSeconds: this.options.pollIntervalSeconds },
      async (jobs) => {
        const [payload] = this.payloadsOf(JOBS.syncSource, jobs);
        if (payload) await this.track(handlers.syncSource(payload.sourceId));
      },
    );
  }

  /**
   * The payloads of jobs taken together, each checked against its job's schema. A payload that does
   * not match is reported and dropped (its job completes with the others): retrying cannot fix it.
   */
  private payloadsOf<P extends z.ZodType>(
    definition: JobDefinition<P>,
    jobs: PgBoss.Job<unknown>[],
  ): z.infer<P>[] {
    const payloads: z.infer<P>[] = [];
    for (const job of jobs) {
      const parsed = definition.payload.safeParse(job.data);
      if (parsed.success) payloads.push(parsed.data);
      else
        this.options.onError(
          new Error(`job ${job.id} (${definition.name}) has an invalid payload: ${parsed.error.message}`),
        );
    }
    return payloads;
  }

  async stopWorkers(): Promise<void> {
    this.localWorkers.length = 0;
    // offWork stops the polling loops without waiting for the job in hand; wait for those here.
    await this.boss.offWork(PROCESS_DOCUMENT);
    await this.boss.offWork(MAINTAIN_WORKSPACE);
    await this.boss.offWork(SYNC_SOURCE);
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
