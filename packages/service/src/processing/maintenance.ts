import type { JobHandlers } from '../domain/jobs.js';
import type { Log } from '../domain/log.js';
import type { JobQueue, SearchIndex } from '../domain/ports.js';
import type { LeaseStore, WorkStore } from '../domain/stores.js';
import type { EmbeddingService } from '../search/embeddings.js';

export interface MaintenanceDeps {
  leases: LeaseStore;
  index: Pick<SearchIndex, 'optimize'>;
  embeddings?: Pick<EmbeddingService, 'maintain'> | undefined;
  jobs: Pick<JobQueue, 'enqueue'>;
  work: Pick<WorkStore, 'deletedAmong' | 'reopenDeletion' | 'runsAwaitingIndex' | 'completeIndexedRuns'>;
  log: Log;
  /**
   * How long a worker holds a workspace's maintenance without renewing it (DOCUMENT_LEASE_SECONDS, as
   * its documents and syncs): renewed every third of it, so a dead holder frees it this soon. Runs
   * waiting for their rows to be folded in wait that long after a worker that maintained their
   * workspace is killed.
   */
  leaseSeconds: number;
  /** When another worker maintains the workspace, come back this much later (tests shorten it). */
  busyRetrySeconds?: number;
}

const BUSY_RETRY_SECONDS = 15;
/** ...or this much later when a run waits for it. */
const URGENT_RETRY_SECONDS = 2;
/** Optimisations one job makes while runs keep finishing meanwhile; the next job does the rest. */
const FOLD_ROUNDS = 3;

/** The handler of the `maintainWorkspace` job, for the worker `workerId`. */
export function maintenanceHandler(
  deps: MaintenanceDeps,
  workerId: string,
): JobHandlers['maintainWorkspace'] {
  return ({ workspaceId }) => maintainWorkspace(deps, workerId, workspaceId);
}

/**
 * A workspace's index maintenance (job `maintain-workspace`): re-embeds what a model change left, then
 * folds recent writes into the BM25 index, compacts and removes replaced versions. One worker at a
 * time per workspace: two optimisations of one table conflict (one fails), so a worker that finds
 * the workspace's lease taken sends the job again for later, for the writes that came meanwhile.
 */
export async function maintainWorkspace(
  deps: MaintenanceDeps,
  workerId: string,
  workspaceId: string,
): Promise<void> {
  const lease = `maintain:${workspaceId}`;
  if (!(await deps.leases.acquire(lease, workerId, deps.leaseSeconds))) {
    // A run waiting to complete must not wait for a maintenance scheduled a minute on.
    const urgent = (await deps.work.runsAwaitingIndex(workspaceId)).length > 0;
    deps.log.debug({ workspaceId, urgent }, 'index maintenance runs elsewhere; sent again for later');
    await deps.jobs.enqueue('maintainWorkspace', urgent ? { workspaceId, urgent } : { workspaceId }, {
      delaySeconds: urgent ? URGENT_RETRY_SECONDS : (deps.busyRetrySeconds ?? BUSY_RETRY_SECONDS),
    });
    return;
  }
  const renew = setInterval(
    () => {
      deps.leases.acquire(lease, workerId, deps.leaseSeconds).catch(() => {});
    },
    (deps.leaseSeconds * 1000) / 3,
  );
  renew.unref();
  try {
    // Vectors first: a missing vector changes results, an unoptimised table only costs time, so a
    // failing optimisation (retried with the job) must not hold the re-embedding back.
    await deps.embeddings?.maintain(workspaceId);
    // Runs waiting for their rows to be folded in complete after an optimisation that began after
    // they were done; a run done meanwhile waits for the next round (at most a few).
    let oldVersions = 0;
    let keptSeconds = 0;
    for (let round = 0; round < FOLD_ROUNDS; round++) {
      const awaiting = await deps.work.runsAwaitingIndex(workspaceId);
      ({ oldVersions, keptSeconds } = await deps.index.optimize(workspaceId));
      await deps.work.completeIndexedRuns(awaiting);
      if ((await deps.work.runsAwaitingIndex(workspaceId)).length === 0) break;
    }
    deps.log.debug({ workspaceId, oldVersions }, 'index optimised');
    // Recently replaced versions are kept for readers still on them; come back once they may go,
    // so that a table that stops changing does not keep them (and their files) for good.
    if (oldVersions > 0) {
      await deps.jobs.enqueue('maintainWorkspace', { workspaceId }, { delaySeconds: keptSeconds + 5 });
    }
  } finally {
    clearInterval(renew);
    await deps.leases.release(lease, workerId).catch(() => {});
    // Re-embedding writes vectors, which may create a table again: once the workspace is deleted,
    // whatever this job wrote is handed to the deletion (see the pipeline's batches).
    if ((await deps.work.deletedAmong(workspaceId, [])).workspace)
      await deps.work.reopenDeletion(workspaceId, []);
  }
}
