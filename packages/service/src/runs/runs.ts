import { requireEditOf } from '../access/checks.js';
import type { JobQueue } from '../domain/ports.js';
import type { RunStore, WorkspaceStore } from '../domain/stores.js';
import type { DocumentRecord, Principal, RunView } from '../domain/types.js';
import { errors } from '../errors.js';

export async function getRun(
  store: Pick<RunStore, 'getRun'>,
  principal: Principal,
  runId: string,
): Promise<RunView> {
  const run = await store.getRun(principal, runId);
  if (!run) throw errors.runNotFound(runId);
  return run;
}

export async function getRunProgress(
  store: Pick<RunStore, 'getRun' | 'listRunDocuments'>,
  principal: Principal,
  runId: string,
): Promise<{ run: RunView; documents: DocumentRecord[] }> {
  const run = await getRun(store, principal, runId);
  return { run, documents: await store.listRunDocuments(principal, runId) };
}

/**
 * Pausing stops new documents from starting; documents already being processed finish.
 * Resuming re-enqueues what is left. Cancelling marks every waiting document cancelled.
 */
export interface RunChangeDeps {
  runs: RunStore;
  workspaces: Pick<WorkspaceStore, 'getWorkspace'>;
}

/** A run the principal may change: found as it sees it, in a workspace it may edit. */
async function runToChange(deps: RunChangeDeps, principal: Principal, runId: string): Promise<void> {
  if (!principal.member) return;
  const run = await getRun(deps.runs, principal, runId);
  await requireEditOf(deps.workspaces, principal, run.workspaceId);
}

export async function pauseRun(deps: RunChangeDeps, principal: Principal, runId: string): Promise<RunView> {
  await runToChange(deps, principal, runId);
  const store = deps.runs;
  const r = await store.transitionRun(principal.accountId, runId, ['processing'], 'paused');
  if (!r.run) throw errors.runNotFound(runId);
  if (!r.changed && r.run.status !== 'paused') throw errors.invalidRunState(runId, r.run.status, 'paused');
  return getRun(store, principal, runId);
}

export async function resumeRun(
  deps: RunChangeDeps & { jobs: Pick<JobQueue, 'enqueueMany'> },
  principal: Principal,
  runId: string,
): Promise<RunView> {
  await runToChange(deps, principal, runId);
  const r = await deps.runs.transitionRun(principal.accountId, runId, ['paused'], 'processing');
  if (!r.run) throw errors.runNotFound(runId);
  if (!r.changed && r.run.status !== 'processing')
    throw errors.invalidRunState(runId, r.run.status, 'resumed');
  if (r.changed) {
    const ids = await deps.runs.queuedDocumentIds(runId);
    await deps.jobs.enqueueMany(
      'processDocument',
      ids.map((documentId) => ({ documentId })),
    );
    // Everything may have finished while the run was paused.
    await deps.runs.settleRun(runId);
  }
  return getRun(deps.runs, principal, runId);
}

export async function cancelRun(deps: RunChangeDeps, principal: Principal, runId: string): Promise<RunView> {
  await runToChange(deps, principal, runId);
  const store = deps.runs;
  const r = await store.transitionRun(principal.accountId, runId, ['processing', 'paused'], 'cancelled');
  if (!r.run) throw errors.runNotFound(runId);
  if (!r.changed && r.run.status !== 'cancelled')
    throw errors.invalidRunState(runId, r.run.status, 'cancelled');
  return getRun(store, principal, runId);
}

/** The workspace's runs, newest first (at most `limit`). */
export async function listRuns(
  store: Pick<RunStore, 'listRuns'>,
  principal: Principal,
  workspaceId: string,
  limit: number,
): Promise<RunView[]> {
  const runs = await store.listRuns(principal, workspaceId, limit);
  if (!runs) throw errors.workspaceNotFound(workspaceId);
  return runs;
}
