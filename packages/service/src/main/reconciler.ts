import type { QuotaStore } from '../accounts/quotas.js';
import type { Log } from '../domain/log.js';
import type { JobQueue, ObjectStore, SearchIndex } from '../domain/ports.js';
import type { AuditStore, LeaseStore, WorkStore, WorkspaceDeletionStore } from '../domain/stores.js';
import type { EvaluationStore } from '../evaluation/store.js';
import type { EmbeddingService } from '../search/embeddings.js';
import type { SyncStore } from '../sources/store.js';
import { enqueueDueSyncs } from '../sources/sync.js';
import { removeDeletedStorage } from '../workspaces/workspaces.js';

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
/** The audit log's old events are removed at most this often (by the worker that reconciles). */
const AUDIT_PURGE_INTERVAL_MS = 3600_000;
/** Days of quota counts kept (account_daily_use), removed with the old audit events. */
const DAILY_USE_KEPT_DAYS = 31;

export interface ReconcilerDeps {
  work: WorkStore;
  jobs: Pick<JobQueue, 'enqueue' | 'enqueueMany' | 'depth'>;
  index: SearchIndex;
  objects: ObjectStore;
  leases: LeaseStore;
  deletions: WorkspaceDeletionStore;
  syncs: SyncStore;
  evaluating: { evaluations: Pick<EvaluationStore, 'lostEvaluations'> };
  embeddings?: EmbeddingService | undefined;
  audit: Pick<AuditStore, 'purgeOlderThan'>;
  auditRetentionDays: number;
  /** The accounts' daily counts, whose old days are removed with the old audit events. */
  quotas: Pick<QuotaStore, 'purgeDailyUse'>;
  leaseSeconds: number;
  reconcileIntervalSeconds: number;
  log: Log;
}

export interface ReconcilePass {
  /** False when another worker holds the reconciler's lease (this one did nothing). */
  ran: boolean;
  enqueued: number;
  settled: number;
}

export interface Reconciler {
  /** One pass, by the one worker that holds the reconciler's lease. */
  pass(): Promise<ReconcilePass>;
  /** Gives the lease up: another worker reconciles from its next tick, not after the lease lapses. */
  release(): Promise<void>;
}

/**
 * The reconciler of the worker `workerId`: on each pass, if it holds the `reconcile` lease, it sends
 * again documents and evaluations whose job may have been lost (after a crash, a lost enqueue or a
 * restore), starts due syncs, settles runs whose documents are all finished, asks for index
 * maintenance that was lost or is due after a change of model, finishes deletions and purges the old
 * audit log. The service database is the source of truth; jobs are only hints.
 */
export function reconciler(deps: ReconcilerDeps, workerId: string): Reconciler {
  // Held by the worker that reconciles, renewed by its every pass: if it dies, another takes over
  // once the lease has lapsed.
  const lease = deps.reconcileIntervalSeconds * 2 + 5;
  const audit = { purgedAt: 0 };
  return {
    async pass() {
      if (!(await deps.leases.acquire(RECONCILE_LEASE, workerId, lease)))
        return { ran: false, enqueued: 0, settled: 0 };
      const { enqueued, jobsLost } = await sendLostDocuments(deps);
      // Syncs whose time has come, and syncs whose worker died (their lease lapsed).
      await enqueueDueSyncs(deps);
      await sendLostEvaluations(deps);
      const settled = await settleRuns(deps);
      await askForMaintenance(deps);
      await finishDeletions(deps);
      await purgeAudit(deps, audit);
      if (enqueued > 0)
        deps.log.info({ enqueued, jobsLost }, 'documents whose job may have been lost sent again');
      return { ran: true, enqueued, settled };
    },
    release: () => deps.leases.release(RECONCILE_LEASE, workerId),
  };
}

/**
 * Only documents whose job may have been lost (their lease lapsed, or waiting past the bound), each
 * handed back once: a pass costs what was lost, not the length of the queue. When fewer jobs wait in
 * the engine than documents in the queue, jobs were lost (a restore, whose job database is new; a
 * database outage): every waiting document goes back at once rather than after the bound. Jobs left
 * active by a handler cut off from its database count for nothing.
 */
async function sendLostDocuments(
  deps: Pick<ReconcilerDeps, 'work' | 'jobs' | 'leaseSeconds'>,
): Promise<{ enqueued: number; jobsLost: boolean }> {
  const [waiting, depth] = await Promise.all([
    deps.work.countWaitingDocuments(JUST_QUEUED_SECONDS),
    deps.jobs.depth('processDocument', { takenWithinSeconds: TAKEN_UNCLAIMED_SECONDS }),
  ]);
  const jobsLost = waiting > depth.queued + depth.active;
  const waitingSeconds = jobsLost ? JUST_QUEUED_SECONDS : Math.max(LOST_JOB_AFTER_SECONDS, deps.leaseSeconds);
  return { enqueued: await sendWaitingDocuments(deps, waitingSeconds), jobsLost };
}

/** Sends again, 500 at a time, the unfinished documents waiting at least `waitingSeconds`. */
async function sendWaitingDocuments(
  deps: Pick<ReconcilerDeps, 'work' | 'jobs'>,
  waitingSeconds: number,
): Promise<number> {
  let sent = 0;
  for (;;) {
    const ids = await deps.work.requeueLostDocuments(500, waitingSeconds);
    if (ids.length > 0)
      await deps.jobs.enqueueMany(
        'processDocument',
        ids.map((documentId) => ({ documentId })),
      );
    sent += ids.length;
    if (ids.length < 500) return sent;
  }
}

/**
 * Sends every unfinished document of a running run to the job engine once. For a process that owns
 * its database (embedded mode) at start: every job the previous one had taken died with it, even
 * those the job engine still counts as active (for hours), which the reconciler cannot tell apart.
 */
export function resendUnfinished(deps: Pick<ReconcilerDeps, 'work' | 'jobs'>): Promise<number> {
  return sendWaitingDocuments(deps, 0);
}

/** Evaluations whose job was lost, or whose worker died mid-way: the next one asks what is left. */
async function sendLostEvaluations(deps: Pick<ReconcilerDeps, 'evaluating' | 'jobs'>): Promise<void> {
  for (const evaluationId of await deps.evaluating.evaluations.lostEvaluations(LOST_JOB_AFTER_SECONDS, 20))
    await deps.jobs.enqueue('runEvaluation', { evaluationId });
}

/** Settles runs whose documents are all finished; answers how many. */
async function settleRuns(deps: Pick<ReconcilerDeps, 'work'>): Promise<number> {
  const runs = await deps.work.findUnsettledRuns(100);
  for (const runId of runs) await deps.work.settleRun(runId);
  return runs.length;
}

/**
 * Runs waiting long for their index: the maintenance job that completes them was lost. After a change
 * of embedding model, every workspace is re-embedded in the background, not held behind a maintenance
 * scheduled a minute on (the removal of replaced versions).
 */
async function askForMaintenance(
  deps: Pick<ReconcilerDeps, 'work' | 'jobs' | 'embeddings' | 'leaseSeconds'>,
): Promise<void> {
  const lostFold = Math.min(LOST_FOLD_AFTER_SECONDS, deps.leaseSeconds);
  for (const workspaceId of await deps.work.workspacesAwaitingIndex(lostFold, 100)) {
    await deps.jobs.enqueue('maintainWorkspace', { workspaceId, urgent: true });
  }
  for (const workspaceId of (await deps.embeddings?.pendingWorkspaces()) ?? []) {
    await deps.jobs.enqueue('maintainWorkspace', { workspaceId, urgent: true });
  }
}

/**
 * Deleted workspaces whose storage the deleting request could not remove, or that a worker wrote to
 * after the deletion.
 */
async function finishDeletions(
  deps: Pick<ReconcilerDeps, 'deletions' | 'index' | 'objects' | 'log'>,
): Promise<void> {
  const storage = { deletions: deps.deletions, index: deps.index, objects: deps.objects };
  for (const { workspaceId, generation } of await deps.deletions.claimDueDeletions(10)) {
    if (await removeDeletedStorage(storage, workspaceId, generation))
      deps.log.info({ workspaceId }, 'storage of a deleted workspace removed');
  }
}

/** The audit log's events older than `auditRetentionDays`, at most once an hour, and old daily counts. */
async function purgeAudit(
  deps: Pick<ReconcilerDeps, 'audit' | 'auditRetentionDays' | 'quotas' | 'log'>,
  state: { purgedAt: number },
): Promise<void> {
  if (Date.now() - state.purgedAt <= AUDIT_PURGE_INTERVAL_MS) return;
  state.purgedAt = Date.now();
  const purged = await deps.audit.purgeOlderThan(deps.auditRetentionDays);
  if (purged > 0) deps.log.info({ purged, days: deps.auditRetentionDays }, 'old audit events removed');
  // A month of each account's daily counts is kept, for an operator who looks back.
  await deps.quotas.purgeDailyUse(DAILY_USE_KEPT_DAYS);
}
