import { hostname } from 'node:os';
import type { QuotaStore } from '../accounts/quotas.js';
import type { JobHandlers } from '../domain/jobs.js';
import type { Log } from '../domain/log.js';
import type { JobQueue, SearchIndex, WebhookSender } from '../domain/ports.js';
import type { AuditStore, LeaseStore, WebhookOutbox, WorkspaceDeletionStore } from '../domain/stores.js';
import type { QuotaLimits } from '../domain/types.js';
import { type EvaluationRunnerDeps, RUNNER_DEFAULTS, runEvaluation } from '../evaluation/runner.js';
import { randomToken } from '../ids.js';
import { maintenanceHandler } from '../processing/maintenance.js';
import { type PipelineDeps, processingHandler } from '../processing/pipeline/index.js';
import type { FolderRootGrant } from '../sources/grants.js';
import type { SourceConnectors, SourceLister } from '../sources/model.js';
import type { SyncStore } from '../sources/store.js';
import { SyncSlots, syncHandler } from '../sources/sync.js';
import { startWebhookDispatcher, type WebhookDeliverySettings } from '../webhooks/dispatch.js';
import { type ReconcilePass, type ReconcilerDeps, reconciler } from './reconciler.js';

export interface WorkerDeps extends PipelineDeps, ReconcilerDeps {
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

export interface RunningWorker {
  id: string;
  reconcile(): Promise<ReconcilePass>;
  stop(): Promise<void>;
}

/**
 * The worker: `concurrency` consumers, each taking up to `batchDocuments` document jobs at a time
 * and processing them as batches (processing/pipeline/); consumers of index maintenance, syncs and
 * evaluations beside them; on a timer, the reconciler (reconciler.ts); and the webhook dispatcher,
 * which sends what the outbox holds (webhooks/dispatch.ts).
 */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  const id = `wrk_${hostname()
    .replace(/[^\w-]/g, '')
    .slice(0, 20)}_${process.pid}_${randomToken(4)}`;
  const log = deps.log;
  const reconciling = reconciler(deps, id);

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
    running = reconciling.pass().catch((err: unknown) => log.warn({ err }, 'reconcile pass failed'));
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
    reconcile: () => reconciling.pass(),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      // Another worker reconciles from its next tick, not after the lease lapses.
      await reconciling.release().catch(() => {});
      await deps.jobs.stopWorkers();
      await dispatcher.stop();
    },
  };
}
