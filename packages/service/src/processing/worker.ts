import { hostname } from 'node:os';
import type { QuotaStore } from '../accounts/quotas.js';
import type { JobHandlers } from '../domain/jobs.js';
import type { Log } from '../domain/log.js';
import type { JobQueue, SearchIndex, WebhookSender } from '../domain/ports.js';
import type { AuditStore, LeaseStore, WebhookOutbox, WorkspaceDeletionStore } from '../domain/stores.js';
import type { QuotaLimits } from '../domain/types.js';
import { type EvaluationRunnerDeps, RUNNER_DEFAULTS, runEvaluation } from '../evaluation/runner.js';
import { randomToken } from '../ids.js';
import type { FolderRootGrant } from '../sources/grants.js';
import type { SourceConnectors, SourceLister } from '../sources/model.js';
import type { SyncStore } from '../sources/store.js';
import { enqueueDueSyncs, SyncSlots, syncHandler } from '../sources/sync.js';
import { startWebhookDispatcher, type WebhookDeliverySettings } from '../webhooks/dispatch.js';
import { removeDeletedStorage } from '../workspaces/workspaces.js';
import { maintenanceHandler } from './maintenance.js';
import { type PipelineDeps, processingHandler } from './pipeline.js';

const RECONCILE_LEASE = 'reconcile';
/**
 * A waiting document's job is sent right after the commit that queued it; one still waiting this long
 * after (or after it was last sent again) may have lost it: a crash between the two, a restore (the
 * job engine's database is not backed up), a job the engine gave up on.
 */
export const LOST_JOB_AFTER_SECONDS = 300;
/**
 * A run waiting this long for its index to be folded in lost the maintenance job that would (its
 * worker died while maintaining, and no later batch of the workspace sent another). Nobody else can
 * maintain the workspace before that worker's lease lapses: with a lease shorter than this, the bound
 * is the lease (a job sent while a maintenance still runs only comes back later: one at a time).
 */
const LOST_FOLD_AFTER_SECONDS = 60;
/** Documents queued more recently may still be waiting for the job their request is sending. */
const JUST_QUEUED_SECONDS = 10;
/**
 * A job is active while its batch runs, but its document waits only between the job's taking and
 * the batch's claim (moments). An active job taken longer ago than this stands for a document being
 * processed, or for nothing: its handler could not record its end (the database was gone).
 */
const TAKEN_UNCLAIMED_SECONDS = 60;

/**
 * Sends every unfinished document of a running run to the job engine once. For a process that owns
 * its database (embedded mode) at start: every job the previous one had taken died with it, even
 * those the job engine still counts as active (for hours), which the reconciler cannot tell apart.
 */
export async function resendUnfinished(deps: Pick<WorkerDeps, 'work' | 'jobs'>): Promise<number> {
  let sent = 0;
  for (;;) {
    const ids = await deps.work.requeueLostDocuments(500, 0);
    if (ids.length > 0)
      await deps.jobs.enqueueMany(
        'processDocument',
        ids.map((documentId) => ({ documentId })),
      );
    sent += ids.length;
    if (ids.length < 500) return sent;
  }
}

export interface WorkerDeps extends PipelineDeps {
  jobs: JobQueue;
  index: SearchIndex;
  /** Who reconciles now (one worker at a time), and who maintains each workspace's index. */
  leases: LeaseStore;
  /** Deleted workspaces whose index tables and objects are still to be removed. */
  deletions: WorkspaceDeletionStore;
  concurrency: number;
  /** Most documents (jobs) one batch takes (WORKER_BATCH_DOCUMENTS). */
  batchDocuments: number;
  /** Syncs this worker runs at once (WORKER_SYNC_CONCURRENCY), and at most how many of one account. */
  syncConcurrency: number;
  /** Questions of an evaluation asked at once (WORKER_EVALUATION_CONCURRENCY). */
  evaluationConcurrency: number;
  syncsPerAccount: number;
  reconcileIntervalSeconds: number;
  log: Log;
  /** The webhook outbox this worker sends from, and how. */
  webhooks: WebhookOutbox;
  webhookSender: WebhookSender;
  webhookDelivery: WebhookDeliverySettings;
  /** Sources' syncs: their schedule, their lease and the listing applied. */
  syncs: SyncStore;
  connectors: SourceConnectors;
  lister: SourceLister;
  folderGrants: readonly FolderRootGrant[];
  /** The accounts' quotas, which a sync adds documents within. */
  quotas: Pick<QuotaStore, 'quotaOverrides' | 'accountUse' | 'purgeDailyUse'>;
  quotaDefaults: QuotaLimits;
  /** Counts and times each batch for the metrics. */
  measureBatch?: <T>(work: () => Promise<T>) => Promise<T>;
  /** The audit log, whose events older than `auditRetentionDays` the reconciler removes. */
  audit: Pick<AuditStore, 'purgeOlderThan'>;
  auditRetentionDays: number;
  /** What an evaluation asks with: search and chat as the server has them, and its records. */
  evaluating: EvaluationRunnerDeps;
}

/** The audit log's old events are removed at most this often (by the worker that reconciles). */
const AUDIT_PURGE_INTERVAL_MS = 3600_000;
/** Days of quota counts kept (account_daily_use), removed with the old audit events. */
const DAILY_USE_KEPT_DAYS = 31;

export interface ReconcilePass {
  /** False when another worker holds the reconciler's lease (this one did nothing). */
  ran: boolean;
  enqueued: number;
  settled: number;
}

export interface RunningWorker {
  id: string;
  reconcile(): Promise<ReconcilePass>;
  stop(): Promise<void>;
}

/**
 * The worker: `concurrency` consumers, each taking up to `batchDocuments` document jobs at a time
 * and processing them as batches (pipeline.ts). On a timer, the one worker that holds the
 * reconciler's lease sends again documents whose job may have been lost (after a crash, a lost
 * enqueue or a restore), settles runs whose documents are all finished, starts due syncs and
 * finishes deletions. The service database is the source of truth; jobs are only hints. Beside them, the
 * webhook dispatcher sends what the outbox holds (webhooks/dispatch.ts).
 */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  const id = `wrk_${hostname()
    .replace(/[^\w-]/g, '')
    .slice(0, 20)}_${process.pid}_${randomToken(4)}`;
  const log = deps.log;

  // Held by the worker that reconciles, renewed by its every pass: if it dies, another takes over
  // once the lease has lapsed.
  const reconcileLease = deps.reconcileIntervalSeconds * 2 + 5;
  let auditPurgedAt = 0;
  const reconcile = async (): Promise<ReconcilePass> => {
    if (!(await deps.leases.acquire(RECONCILE_LEASE, id, reconcileLease)))
      return { ran: false, enqueued: 0, settled: 0 };
    // Only documents whose job may have been lost (their lease lapsed, or waiting past the bound),
    // each handed back once: a pass costs what was lost, not the length of the queue. When fewer
    // jobs wait in the engine than documents in the queue, jobs were lost (a restore, whose job
    // database is new; a database outage): every waiting document goes back at once rather than
    // after the bound. Jobs left active by a handler cut off from its database count for nothing.
    const [waiting, depth] = await Promise.all([
      deps.work.countWaitingDocuments(JUST_QUEUED_SECONDS),
      deps.jobs.depth('processDocument', { takenWithinSeconds: TAKEN_UNCLAIMED_SECONDS }),
    ]);
    const jobsLost = waiting > depth.queued + depth.active;
    const waitingSeconds = jobsLost
      ? JUST_QUEUED_SECONDS
      : Math.max(LOST_JOB_AFTER_SECONDS, deps.leaseSeconds);
    let enqueued = 0;
    for (;;) {
      const ids = await deps.work.requeueLostDocuments(500, waitingSeconds);
      if (ids.length > 0)
        await deps.jobs.enqueueMany(
          'processDocument',
          ids.map((documentId) => ({ documentId })),
        );
      enqueued += ids.length;
      if (ids.length < 500) break;
    }
    // Syncs whose time has come, and syncs whose worker died (their lease lapsed).
    await enqueueDueSyncs(deps);
    // Evaluations whose job was lost, or whose worker died mid-way: the next one asks what is left.
    for (const evaluationId of await deps.evaluating.evaluations.lostEvaluations(LOST_JOB_AFTER_SECONDS, 20))
      await deps.jobs.enqueue('runEvaluation', { evaluationId });
    const runs = await deps.work.findUnsettledRuns(100);
    for (const runId of runs) await deps.work.settleRun(runId);
    // Runs waiting long for their index: the maintenance job that completes them was lost.
    const lostFold = Math.min(LOST_FOLD_AFTER_SECONDS, deps.leaseSeconds);
    for (const workspaceId of await deps.work.workspacesAwaitingIndex(lostFold, 100)) {
      await deps.jobs.enqueue('maintainWorkspace', { workspaceId, urgent: true });
    }
    // After a change of embedding model, every workspace is re-embedded in the background.
    // Not held behind a maintenance scheduled a minute on (the removal of replaced versions).
    for (const workspaceId of (await deps.embeddings?.pendingWorkspaces()) ?? []) {
      await deps.jobs.enqueue('maintainWorkspace', { workspaceId, urgent: true });
    }
    // Deleted workspaces whose storage the deleting request could not remove, or that a worker wrote
    // to after the deletion.
    const storage = { deletions: deps.deletions, index: deps.index, objects: deps.objects };
    for (const { workspaceId, generation } of await deps.deletions.claimDueDeletions(10)) {
      if (await removeDeletedStorage(storage, workspaceId, generation))
        log.info({ workspaceId }, 'storage of a deleted workspace removed');
    }
    if (Date.now() - auditPurgedAt > AUDIT_PURGE_INTERVAL_MS) {
      auditPurgedAt = Date.now();
      const purged = await deps.audit.purgeOlderThan(deps.auditRetentionDays);
      if (purged > 0) log.info({ purged, days: deps.auditRetentionDays }, 'old audit events removed');
      // A month of each account's daily counts is kept, for an operator who looks back.
      await deps.quotas.purgeDailyUse(DAILY_USE_KEPT_DAYS);
    }
    if (enqueued > 0) log.info({ enqueued, jobsLost }, 'documents whose job may have been lost sent again');
    return { ran: true, enqueued, settled: runs.length };
  };

  const handlers: JobHandlers = {
    processDocument: processingHandler(deps, id, deps.measureBatch),
    maintainWorkspace: maintenanceHandler(deps, id),
    syncSource: syncHandler(deps, id, new SyncSlots(deps.syncsPerAccount)),
    runEvaluation: async ({ evaluationId }) => {
      await runEvaluation(deps.evaluating, evaluationId, id, {
        ...RUNNER_DEFAULTS,
        concurrency: deps.evaluationConcurrency,
      });
    },
  };
  await deps.jobs.startWorkers(handlers, {
    concurrency: deps.concurrency,
    batchSize: deps.batchDocuments,
    consumers: { syncSource: deps.syncConcurrency },
  });

  const dispatcher = startWebhookDispatcher({
    outbox: deps.webhooks,
    sender: deps.webhookSender,
    secrets: deps.secrets,
    settings: deps.webhookDelivery,
    log,
  });

  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = reconcile().catch((err: unknown) => log.warn({ err }, 'reconcile pass failed'));
  };
  tick();
  const timer = setInterval(tick, deps.reconcileIntervalSeconds * 1000);
  timer.unref();
  log.info(
    {
      workerId: id,
      concurrency: deps.concurrency,
      batchDocuments: deps.batchDocuments,
      syncConcurrency: deps.syncConcurrency,
    },
    'worker started',
  );

  return {
    id,
    reconcile,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      // Another worker reconciles from its next tick, not after the lease lapses.
      await deps.leases.release(RECONCILE_LEASE, id).catch(() => {});
      await deps.jobs.stopWorkers();
      await dispatcher.stop();
    },
  };
}
