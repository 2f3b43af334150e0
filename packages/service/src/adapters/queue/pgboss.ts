import PgBoss from 'pg-boss';
import type { z } from 'zod';
import {
  JOBS,
  type JobDefinition,
  type JobHandlers,
  type JobName,
  type JobPayload,
  startAfterSeconds,
} from '../../domain/jobs.js';
import type { EnqueueOptions, JobQueue, WorkerOptions } from '../../domain/ports.js';
import { asUnavailable } from '../postgres/db.js';
import { enqueuedWithTrace, inJobSpan } from '../tracing/jobs.js';

const JOB_NAMES = Object.keys(JOBS) as JobName[];
/** Most jobs one insert carries. */
const INSERT_ROWS = 500;

/** pg-boss's options for a job's queue, from its declaration in jobs.ts. */
function queueOptions({ retry }: JobDefinition<z.ZodType>): Omit<PgBoss.Queue, 'name'> {
  return { retryLimit: retry.limit, retryDelay: retry.delaySeconds, retryBackoff: retry.backoff };
}

export interface PgBossQueueOptions {
  url: string;
  namespace: string;
  pollIntervalSeconds: number;
  onError: (err: Error) => void;
  /**
   * Tracing is on (issue 43): jobs carry their enqueuer's `traceparent` and handlers run in a span
   * of their own, its child (or linked to each, for a batch).
   */
  traced?: boolean;
}

/**
 * Jobs in pg-boss, in its own database under the workflow namespace. Crash recovery does not depend
 * on job expiry: documents carry leases in the service database and a reconciler re-enqueues the
 * ones nobody holds. The `short` policy keeps at most one waiting job per singleton key, so
 * enqueueing twice is harmless while a job is already active. Queues, enqueueing and consumers all
 * follow the table in jobs.ts: nothing here is particular to one job.
 */
export class PgBossQueue implements JobQueue {
  /** Replaced after a failed start: pg-boss 10 cannot be started again once a start has failed. */
  private boss: PgBoss;
  private started: Promise<void> | undefined;
  /**
   * Consumers running in this process, by queue: woken when a job is sent here that may start now
   * (unless its queue is paced and the sender does not ask), rather than at their next poll; and a
   * batched job's consumer after each batch (see startWorkers).
   */
  private readonly localWorkers = new Map<string, string[]>();
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

  enqueue<K extends JobName>(name: K, payload: JobPayload<K>, options?: EnqueueOptions): Promise<void> {
    return this.enqueueMany(name, [payload], options);
  }

  async enqueueMany<K extends JobName>(
    name: K,
    payloads: readonly JobPayload<K>[],
    options: EnqueueOptions = {},
  ): Promise<void> {
    await this.start();
    const definition: JobDefinition<z.ZodType> = JOBS[name];
    // pg-boss takes jobs by priority first, then in the order they were created.
    const priority = options.ahead ? 1 : 0;
    let startsNow = false;
    const sent = this.options.traced ? enqueuedWithTrace(payloads) : payloads;
    for (let i = 0; i < sent.length; i += INSERT_ROWS) {
      const rows = sent.slice(i, i + INSERT_ROWS).map((data): PgBoss.JobInsert => {
        const wait = options.delaySeconds ?? startAfterSeconds(definition, data);
        if (!(wait > 0)) startsNow = true;
        const row = { name: definition.name, data, singletonKey: definition.singletonKey(data), priority };
        // pg-boss reads a number of seconds given as text as an interval from now.
        return wait > 0 ? { ...row, startAfter: String(wait) } : row;
      });
      await this.boss.insert(rows);
    }
    if (startsNow && (!definition.paced || options.wake))
      for (const id of this.localWorkers.get(definition.name) ?? []) this.boss.notifyWorker(id);
  }

  async startWorkers(handlers: JobHandlers, options: WorkerOptions): Promise<void> {
    await this.start();
    // pg-boss 10 has no per-worker concurrency setting: each work() call is one sequential consumer.
    // Its loop also sleeps a full polling interval after every job; notifying a batched job's
    // consumer when a batch is done makes it fetch the next one at once while the queue has work.
    // The jobs a consumer takes at once complete together, or fail together when the handler throws
    // (and are retried).
    for (const key of JOB_NAMES) {
      const definition: JobDefinition<z.ZodType> = JOBS[key];
      const batched = definition.batched === true;
      // The table types each handler by its job; here every payload has been checked against it.
      const handler = handlers[key] as (input: unknown) => Promise<void>;
      const poll = {
        batchSize: batched ? options.batchSize : 1,
        pollingIntervalSeconds: definition.pollSeconds ?? this.options.pollIntervalSeconds,
      };
      const consumers = batched ? options.concurrency : (options.consumers?.[key] ?? 1);
      for (let i = 0; i < consumers; i++) {
        let id = '';
        id = await this.boss.work(definition.name, poll, async (jobs) => {
          try {
            const payloads = this.payloadsOf(definition, jobs);
            // A job that is not batched is taken alone (batchSize 1).
            if (!payloads.length) return;
            const handle = () => this.track(handler(batched ? payloads : payloads[0]));
            await (this.options.traced
              ? inJobSpan(
                  definition.name,
                  jobs.map((j) => j.data),
                  handle,
                )
              : handle());
          } finally {
            if (batched && id && this.localWorkers.get(definition.name)?.includes(id))
              this.boss.notifyWorker(id);
          }
        });
        this.localWorkers.set(definition.name, [...(this.localWorkers.get(definition.name) ?? []), id]);
      }
    }
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
    this.localWorkers.clear();
    // offWork stops the polling loops without waiting for the job in hand; wait for those here.
    for (const key of JOB_NAMES) await this.boss.offWork(JOBS[key].name);
    await Promise.allSettled([...this.inFlight]);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => {});
    return work;
  }

  async depth(
    name: JobName,
    options: { takenWithinSeconds?: number } = {},
  ): Promise<{ queued: number; active: number }> {
    await this.start();
    // pg-boss's states are an ordered enum: created and retry come before active.
    const r = await this.boss.getDb().executeSql(
      `SELECT count(*) FILTER (WHERE state < 'active')::int AS queued,
              count(*) FILTER (WHERE state = 'active'
                AND ($2::float8 IS NULL OR started_on > now() - make_interval(secs => $2::float8)))::int AS active
       FROM ${this.options.namespace}.job WHERE name = $1`,
      [JOBS[name].name, options.takenWithinSeconds ?? null],
    );
    const row = r.rows[0] as { queued: number; active: number } | undefined;
    return { queued: row?.queued ?? 0, active: row?.active ?? 0 };
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
