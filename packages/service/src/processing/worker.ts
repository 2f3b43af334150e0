import { hostname } from 'node:os';
import type { Log } from '../domain/log.js';
import type { JobQueue, SearchIndex, WebhookSender } from '../domain/ports.js';
import type { WebhookOutbox, WorkspaceDeletionStore } from '../domain/stores.js';
import { randomToken } from '../ids.js';
import type { FolderRootGrant } from '../sources/grants.js';
import type { SourceConnectors, SourceLister } from '../sources/model.js';
import type { SyncStore } from '../sources/store.js';
import { enqueueDueSyncs, syncSource } from '../sources/sync.js';
import { startWebhookDispatcher, type WebhookDeliverySettings } from '../webhooks/dispatch.js';
import { removeDeletedStorage } from '../workspaces/workspaces.js';
import { type PipelineDeps, processDocuments } from './pipeline.js';

export interface WorkerDeps extends PipelineDeps {
  jobs: JobQueue;
  index: SearchIndex;
  /** Deleted workspaces whose index tables and objects are still to be removed. */
  deletions: WorkspaceDeletionStore;
  concurrency: number;
  /** Most documents (jobs) one batch takes (WORKER_BATCH_DOCUMENTS). */
  batchDocuments: number;
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
}

export interface RunningWorker {
  id: string;
  reconcile(): Promise<{ enqueued: number; settled: number }>;
  stop(): Promise<void>;
}

/**
 * The worker: `concurrency` consumers, each taking up to `batchDocuments` document jobs at a time
 * and processing them as batches (pipeline.ts); on a timer, it re-enqueues documents that no live
 * worker holds (after a crash, a lost enqueue or a restore) and settles runs whose documents are
 * all finished. The service database is the source of truth; jobs are only hints. Beside them, the
 * webhook dispatcher sends what the outbox holds (webhooks/dispatch.ts).
 */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  const id = `wrk_${hostname()
    .replace(/[^\w-]/g, '')
    .slice(0, 20)}_${process.pid}_${randomToken(4)}`;
  const log = deps.log;

  const reconcile = async () => {
    let enqueued = 0;
    let after: string | null = null;
    for (;;) {
      const ids = await deps.work.findOrphanedDocuments(500, after);
      if (ids.length === 0) break;
      await deps.jobs.enqueueDocuments(ids);
      enqueued += ids.length;
      after = ids[ids.length - 1]!;
    }
    // Syncs whose time has come, and syncs whose worker died (their lease lapsed).
    await enqueueDueSyncs(deps);
    const runs = await deps.work.findUnsettledRuns(100);
    for (const runId of runs) await deps.work.settleRun(runId);
    // After a change of embedding model, every workspace is re-embedded in the background.
    for (const workspaceId of (await deps.embeddings?.pendingWorkspaces()) ?? []) {
      await deps.jobs.enqueueWorkspaceMaintenance(workspaceId);
    }
    // Deleted workspaces whose storage the deleting request could not remove, or that a worker wrote
    // to after the deletion.
    const storage = { deletions: deps.deletions, index: deps.index, objects: deps.objects };
    for (const { workspaceId, generation } of await deps.deletions.claimDueDeletions(10)) {
      if (await removeDeletedStorage(storage, workspaceId, generation))
        log.info({ workspaceId }, 'storage of a deleted workspace removed');
    }
    return { enqueued, settled: runs.length };
  };

  await deps.jobs.startWorkers(
    {
      processDocuments: (documentIds) => processDocuments(deps, documentIds, id),
      syncSource: async (sourceId) => {
        await syncSource(deps, sourceId, id);
      },
      maintainWorkspace: async (workspaceId) => {
        try {
          // Vectors first: a missing vector changes results, an unoptimised table only costs time, so a
          // failing optimisation (retried with the job) must not hold the re-embedding back.
          await deps.embeddings?.maintain(workspaceId);
          const { oldVersions, keptSeconds } = await deps.index.optimize(workspaceId);
          log.debug({ workspaceId, oldVersions }, 'index optimised');
          // Recently replaced versions are kept for readers still on them; come back once they may go,
          // so that a table that stops changing does not keep them (and their files) for good.
          if (oldVersions > 0) {
            await deps.jobs.enqueueWorkspaceMaintenance(workspaceId, { delaySeconds: keptSeconds + 5 });
          }
        } finally {
          // Re-embedding writes vectors, which may create a table again: once the workspace is
          // deleted, whatever this job wrote is handed to the deletion (see the pipeline's batches).
          if ((await deps.work.deletedAmong(workspaceId, [])).workspace)
            await deps.work.reopenDeletion(workspaceId, []);
        }
      },
    },
    { concurrency: deps.concurrency, batchSize: deps.batchDocuments },
  );

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
    { workerId: id, concurrency: deps.concurrency, batchDocuments: deps.batchDocuments },
    'worker started',
  );

  return {
    id,
    reconcile,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      await deps.jobs.stopWorkers();
      await dispatcher.stop();
    },
  };
}
