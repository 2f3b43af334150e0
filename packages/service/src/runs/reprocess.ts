import { requireEditOf } from '../access/checks.js';
import type { JobQueue } from '../domain/ports.js';
import type { DocumentStore, RunStore, WorkspaceStore } from '../domain/stores.js';
import type { DocumentRecord, DocumentStatus, Principal, RunView } from '../domain/types.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { getRunProgress } from './runs.js';

/** What can be processed again: documents a cancel stopped, and failures that a retry may fix. */
export const REPROCESSABLE = ['cancelled', 'failed'] as const satisfies readonly DocumentStatus[];

export interface ReprocessDeps {
  runs: Pick<RunStore, 'getRun' | 'listRunDocuments' | 'reprocessDocuments'>;
  documents: Pick<DocumentStore, 'getDocument'>;
  workspaces: Pick<WorkspaceStore, 'getWorkspace'>;
  jobs: Pick<JobQueue, 'enqueueMany'>;
}

export interface Reprocessed {
  run: RunView;
  documents: DocumentRecord[];
}

/** Starts the run, then enqueues its documents (after the commit; the reconciler covers a lost enqueue). */
async function start(
  deps: ReprocessDeps,
  principal: Principal,
  ids: string[],
): Promise<Reprocessed | undefined> {
  const started = await deps.runs.reprocessDocuments(principal.accountId, ids, newId('run'));
  if (started)
    await deps.jobs
      .enqueueMany(
        'processDocument',
        started.documents.map((d) => ({ documentId: d.id })),
      )
      .catch(() => {});
  return started;
}

/**
 * Processes a cancelled or failed document again, in a run of its own (kind `reprocess`): its original
 * (or its source item, or its URL, if it was never fetched) goes through the pipeline as if new.
 */
export async function reprocessDocument(
  deps: ReprocessDeps,
  principal: Principal,
  documentId: string,
): Promise<Reprocessed> {
  const doc = await deps.documents.getDocument(principal, documentId);
  if (!doc) throw errors.documentNotFound(documentId);
  await requireEditOf(deps.workspaces, principal, doc.workspaceId);
  if (!(REPROCESSABLE as readonly DocumentStatus[]).includes(doc.status))
    throw errors.documentNotReprocessable(doc.id, doc.status);
  const started = await start(deps, principal, [doc.id]);
  // It changed meanwhile (deleted, or another request took it first).
  if (!started) {
    const now = await deps.documents.getDocument(principal, documentId);
    if (!now) throw errors.documentNotFound(documentId);
    throw errors.documentNotReprocessable(now.id, now.status);
  }
  return started;
}

/**
 * Processes a run's cancelled and failed documents again (or those of the states given), together in
 * one new run: what a cancelled run left undone, in one request.
 */
export async function reprocessRun(
  deps: ReprocessDeps,
  principal: Principal,
  runId: string,
  statuses: readonly DocumentStatus[] = REPROCESSABLE,
): Promise<Reprocessed> {
  const { run, documents } = await getRunProgress(deps.runs, principal, runId);
  await requireEditOf(deps.workspaces, principal, run.workspaceId);
  // Only the documents the principal may see (getRunProgress lists no others).
  const ids = documents.filter((d) => statuses.includes(d.status)).map((d) => d.id);
  const started = ids.length > 0 ? await start(deps, principal, ids) : undefined;
  if (!started) throw errors.runNotReprocessable(runId);
  return started;
}
