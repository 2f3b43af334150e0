import { artifactKeys } from '../../domain/artifacts.js';
import type { FinishDocument } from '../../domain/stores.js';
import type { DocumentRecord, RunStatus } from '../../domain/types.js';
import { DependencyUnavailable } from '../../errors.js';
import { indexDocuments } from '../../search/indexing.js';
import type { Batch } from './batch.js';
import { cancelledWhileProcessing, type ParsedDocument, type Prepared } from './slot.js';

/**
 * Makes a group of parsed documents searchable (one index commit) and finishes them with the
 * group's failures (one transaction). A document cancelled, deleted or taken over meanwhile is left
 * out; an error that retrying may cure sends the whole group back for another attempt.
 */
export async function flush(batch: Batch, group: Prepared[], last: boolean): Promise<void> {
  const { deps, workerId } = batch;
  const results: { documentId: string; result: FinishDocument }[] = [];
  const written: ParsedDocument[] = [];
  let searchable = false;
  try {
    const parsed = group.filter((p): p is ParsedDocument => p.kind === 'parsed');
    const runs: Map<string, RunStatus> =
      parsed.length > 0
        ? await deps.work.setStages(
            parsed.map((p) => p.doc.id),
            workerId,
            'indexing',
          )
        : new Map();
    const stored = await Promise.allSettled(parsed.map((p) => p.stored));
    for (const [i, p] of parsed.entries()) {
      const slot = batch.slot(p.doc.id);
      const run = runs.get(p.doc.id);
      const put = stored[i]!;
      if (put.status === 'rejected') {
        await retryLater(batch, [p.doc], put.reason);
      } else if (!run || slot.abort.signal.aborted) {
        slot.lose(deps.log);
      } else if (run === 'cancelled') {
        const failure = cancelledWhileProcessing();
        results.push({
          documentId: p.doc.id,
          result: { status: 'cancelled', errorCode: failure.code, errorMessage: failure.message },
        });
      } else {
        written.push(p);
      }
    }
    if (written.length > 0) {
      const t0 = performance.now();
      await indexDocuments(
        deps,
        batch.workspaceId,
        written.map((p) => ({ documentId: p.doc.id, rows: p.rows })),
      );
      const share = (performance.now() - t0) / 1000 / written.length;
      for (const p of written) {
        batch.slot(p.doc.id).phase = 'written';
        deps.observeStage?.('indexing', share);
        results.push({ documentId: p.doc.id, result: p.result });
      }
    }
    for (const p of group) {
      if (p.kind === 'failed') results.push({ documentId: p.doc.id, result: p.result });
    }
    const finished = await deps.work.finishDocuments(workerId, results);
    searchable = written.some((p) => finished.has(p.doc.id));
    for (const { documentId, result } of results) {
      const slot = batch.slot(documentId);
      if (finished.has(documentId)) {
        slot.phase = 'finished';
        deps.observeFinished?.(result.status);
        if (result.status === 'ready') {
          deps.log.info(
            { documentId, status: result.status, chunks: result.chunkCount },
            'document processed',
          );
        } else {
          deps.log.info(
            { documentId, status: result.status, code: result.errorCode },
            'document not indexed',
          );
        }
      } else {
        // Deleted or taken over while we worked: what we wrote is checked at the end of the batch.
        slot.lose(deps.log);
      }
    }
  } catch (err) {
    // Those of the group not settled yet (finished, lost or sent back already).
    await retryLater(
      batch,
      group
        .filter((p) => (p.kind === 'parsed' || p.kind === 'failed') && batch.slot(p.doc.id).held)
        .map((p) => p.doc),
      err,
    );
    return;
  }
  if (searchable) await scheduleMaintenance(batch, last);
}

/**
 * Only for rows that stay: a deleted workspace's are removed with it. A run this group finished
 * completes once its rows are folded in: then the maintenance runs now, not after the usual wait
 * that lets a burst of groups fold in one optimisation. The worker's maintenance consumer takes it
 * when it next looks (within 2 s), or at once after a batch's last group when no other batch is
 * queued: the end of a burst, whose runs are then complete as soon as their rows are folded in.
 */
async function scheduleMaintenance(batch: Batch, last: boolean): Promise<void> {
  const { deps, workspaceId } = batch;
  const schedule = async () => {
    const waiting = (await deps.work.runsAwaitingIndex(workspaceId)).length > 0;
    const wake = waiting && last && (await deps.jobs.depth('processDocument')).queued === 0;
    await deps.jobs.enqueue('maintainWorkspace', waiting ? { workspaceId, urgent: true } : { workspaceId }, {
      wake,
    });
  };
  await schedule().catch((err: unknown) => {
    deps.log.warn({ err, workspaceId }, 'could not schedule index maintenance');
  });
}

/**
 * Documents that met an error retrying may cure (storage, index, database) are retried after a
 * back-off, or failed when that was their last attempt; the batch takes no new document.
 */
export async function retryLater(batch: Batch, docs: DocumentRecord[], err: unknown): Promise<void> {
  const { deps, workerId } = batch;
  batch.failure ??= err;
  try {
    for (const doc of docs) {
      deps.log.error({ err, documentId: doc.id, attempt: doc.attempts }, 'document processing error');
      batch.slot(doc.id).phase = doc.attempts >= deps.maxAttempts ? 'finished' : 'returned';
    }
    const last = docs.filter((d) => d.attempts >= deps.maxAttempts);
    if (last.length > 0) {
      // Object storage down through every attempt: say so, since the file itself may be fine.
      const storageDown = err instanceof DependencyUnavailable && err.dependency === 'objectStorage';
      await deps.work.finishDocuments(
        workerId,
        last.map((d) => ({
          documentId: d.id,
          result: {
            status: 'failed',
            errorCode: storageDown ? 'storage_unavailable' : 'processing_failed',
            errorMessage: `Processing failed after ${d.attempts} attempts: ${(err as Error).message}`,
          },
        })),
      );
    }
    const again = docs.filter((d) => d.attempts < deps.maxAttempts).map((d) => d.id);
    if (again.length > 0) await deps.work.releaseLeases(again, workerId);
  } catch (settleErr) {
    // The database itself is failing: the leases lapse on their own and the documents come back.
    deps.log.warn({ err: settleErr }, 'could not release the documents of a failed batch');
  }
}

/**
 * A document deleted while this batch worked on it, alone or with its whole workspace, must not come
 * back through what the batch wrote after the deletion removed its things: its extracted text, its
 * original fetched from a URL, its index rows, or index tables a write created again. Looked at once
 * every write of the batch has settled, so that whatever a deletion could not see, this sees. A
 * deleted workspace's leftovers are handed to its deletion, which the reconcilers carry out.
 */
export async function discardDeleted(batch: Batch): Promise<void> {
  const slots = [...batch.slots.values()];
  if (!slots.some((s) => s.phase === 'lost') && batch.failure === undefined) return;
  const { deps, workspaceId } = batch;
  await Promise.allSettled(slots.flatMap((s) => s.writes));
  const gone = await deps.work.deletedAmong(
    workspaceId,
    batch.docs.map((d) => d.id),
  );
  const keys = batch.docs
    .filter((d) => gone.workspace || gone.documents.has(d.id))
    .flatMap((d) => [...new Set([d.storageKey, ...artifactKeys.all(d.id)])]);
  if (gone.workspace) {
    await deps.work.reopenDeletion(workspaceId, keys);
    deps.log.info({ workspaceId }, 'workspace deleted during the batch: its writes are removed');
    return;
  }
  if (gone.documents.size === 0) return;
  for (const id of gone.documents) await deps.index.deleteDocument(workspaceId, id);
  await deps.objects.delete(keys);
}
