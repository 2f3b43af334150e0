import type { JobQueue } from '../domain/ports.js';
import type { RunStore } from '../domain/stores.js';
import type { DocumentRecord, Principal, RunView } from '../domain/types.js';
import { errors } from '../errors.js';

export async function getRun(store: RunStore, principal: Principal, runId: string): Promise<RunView> {
  const run = await store.getRun(principal.accountId, runId);
  if (!run) throw errors.runNotFound(runId);
  return run;
}

export async function getRunProgress(
  store: RunStore,
  principal: Principal,
  runId: string,
): Promise<{ run: RunView; documents: DocumentRecord[] }> {
  const run = await getRun(store, principal, runId);
  return { run, documents: await store.listRunDocuments(runId) };
}

/**
 * Pausing stops new documents from starting; documents already being processed finish.
 * Resuming re-enqueues what is left. Cancelling marks every waiting document cancelled.
 */
export async function pauseRun(store: RunStore, principal: Principal, runId: string): Promise<RunView> {
  const r = await store.transitionRun(principal.accountId, runId, ['processing'], 'paused');
  if (!r.run) throw errors.runNotFound(runId);
  if (!r.changed && r.run.status !== 'paused') throw errors.invalidRunState(runId, r.run.status, 'paused');
  return getRun(store, principal, runId);
}

export async function resumeRun(
  deps: { runs: RunStore; jobs: Pick<JobQueue, 'enqueueDocuments'> },
  principal: Principal,
  runId: string,
): Promise<RunView> {
  const r = await deps.runs.transitionRun(principal.accountId, runId, ['paused'], 'processing');
  if (!r.run) throw errors.runNotFound(runId);
  if (!r.changed && r.run.status !== 'processing')
    throw errors.invalidRunState(runId, r.run.status, 'resumed');
  if (r.changed) {
    await deps.jobs.enqueueDocuments(await deps.runs.queuedDocumentIds(runId));
    // Everything may have finished while the run was paused.
    await deps.runs.settleRun(runId);
  }
  return getRun(deps.runs, principal, runId);
}

export async function cancelRun(store: RunStore, principal: Principal, runId: string): Promise<RunView> {
  const r = await store.transitionRun(principal.accountId, runId, ['processing', 'paused'], 'cancelled');
  if (!r.run) throw errors.runNotFound(runId);
  if (!r.changed && r.run.status !== 'cancelled')
    throw errors.invalidRunState(runId, r.run.status, 'cancelled');
  await store.cancelQueuedDocuments(runId);
  return getRun(store, principal, runId);
}
