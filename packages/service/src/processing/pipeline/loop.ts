import { mkdir, rm } from 'node:fs/promises';
import type { JobHandlers } from '../../domain/jobs.js';
import type { DocumentRecord } from '../../domain/types.js';
import { DocumentFailure } from '../../errors.js';
import { Batch, type PipelineDeps } from './batch.js';
import { discardDeleted, flush, retryLater } from './commit.js';
import { dropWorkFile, fetchBytes, recordFetched } from './fetch.js';
import { holdLeases } from './leases.js';
import { parseDocument, prepareParsed } from './parse.js';
import { FlushWindow, Turns } from './schedule.js';
import { fetchesFirst, LeaseLost, type Prepared } from './slot.js';
import { startDocument } from './start.js';

/**
 * The handler of the batched `processDocument` job, for the worker `workerId`; `measure` wraps each
 * batch (the worker's batch metric).
 */
export function processingHandler(
  deps: PipelineDeps,
  workerId: string,
  measure?: <T>(work: () => Promise<T>) => Promise<T>,
): JobHandlers['processDocument'] {
  return (payloads) => {
    const work = () =>
      processDocuments(
        deps,
        payloads.map((p) => p.documentId),
        workerId,
      );
    return measure ? measure(work) : work();
  };
}

/**
 * Processes the documents of a batch of jobs: claims those it may take together (one workspace,
 * the one whose turn it is, within the batch's size; see claimDocuments), then parses them one after
 * another through the workspace's parser process and makes them searchable a group at a time: one
 * index commit and one transaction per group. Leases, attempts and failures stay per document, and
 * every step can run twice without harm (artifacts are overwritten, index rows are replaced as one
 * set per document), so the documents of a worker that died are simply processed again by the next one.
 */
export async function processDocuments(
  deps: PipelineDeps,
  documentIds: string[],
  workerId: string,
): Promise<void> {
  const claim = await deps.work.claimDocuments(documentIds, workerId, {
    leaseSeconds: deps.leaseSeconds,
    maxAttempts: deps.maxAttempts,
    maxBytes: deps.batchMaxBytes,
    maxDocuments: deps.batchDocuments,
  });
  for (const s of claim.skipped) {
    deps.log.debug({ documentId: s.documentId, outcome: s.reason }, 'document not claimed');
  }
  try {
    if (claim.deferred.length > 0) {
      // Ahead of the queue: they were next in line, and another consumer may be idle.
      await deps.jobs.enqueueMany(
        'processDocument',
        claim.deferred.map((documentId) => ({ documentId })),
        { ahead: true },
      );
    }
    for (const doc of claim.exhausted) {
      await deps.work.failUnleased(
        doc.id,
        'processing_failed',
        `Processing stopped after ${doc.attempts} attempts; the last attempt did not finish (the worker may have crashed on this file).`,
      );
      deps.log.warn({ documentId: doc.id }, 'document failed: attempts exhausted');
    }
  } catch (err) {
    // Nothing started yet: give the claimed documents back; the jobs are retried.
    const claimed = claim.claimed.map((d) => d.id);
    if (claimed.length > 0) await deps.work.unclaimDocuments(claimed, workerId).catch(() => {});
    throw err;
  }
  if (claim.claimed.length > 0)
    await runBatch(new Batch(deps, workerId, claim.claimed, claim.workspaceLanguage ?? 'auto'));
}

/**
 * Takes the batch's documents one after another (takeTurn) and writes them out a window at a time
 * (commit.ts): a window is written while the next documents are parsed, never two at once.
 */
async function runBatch(batch: Batch): Promise<void> {
  const { deps, docs } = batch;
  const renewal = holdLeases(batch);
  let flushing: Promise<void> = Promise.resolve();
  const window = new FlushWindow(batch.schedule);
  const unclaim: string[] = [];
  const turns = new Turns(batch.schedule, performance.now());
  try {
    await mkdir(batch.workDir, { recursive: true });
    for (const [i, doc] of docs.entries()) {
      if (batch.failure !== undefined) {
        // Left for later, never started: back to the queue without an attempt counted.
        unclaim.push(...docs.slice(i).map((d) => d.id));
        break;
      }
      const startedAt = performance.now();
      await turns.maybeYield(startedAt);
      const prepared = await takeTurn(batch, doc, docs[i + 1]);
      if (prepared.kind === 'paused') unclaim.push(doc.id);
      else if (prepared.kind === 'lost') batch.slot(doc.id).lose(deps.log);
      else if (prepared.kind === 'unchanged') batch.slot(doc.id).phase = 'finished';
      else if (prepared.kind === 'error') await retryLater(batch, [prepared.doc], prepared.error);
      else window.add(prepared, startedAt);
      const last = i === docs.length - 1 || batch.failure !== undefined;
      if (window.due(last, performance.now())) {
        // A window of small documents is written while the next ones are parsed (never two at once).
        // A window of one is a document that took the whole second itself: writing it beside the
        // next large parse only made both compete for the CPU (measured: R manuals 10 % slower).
        await flushing;
        const group = window.take();
        flushing = flush(batch, group, last);
        if (group.length === 1) await flushing;
      }
    }
    await flushing;
    if (window.size > 0) await flush(batch, window.take(), true);
    if (unclaim.length > 0) await giveBack(batch, unclaim);
  } finally {
    renewal.stop();
    await wrapUp(batch);
  }
  // The pg-boss jobs of the batch fail and are retried after a back-off; documents finished
  // meanwhile are skipped then, the others claimed again.
  if (batch.failure !== undefined) throw batch.failure;
}

/** Documents the batch did not take (after a failure) or found paused: back to the queue. */
async function giveBack(batch: Batch, documentIds: string[]): Promise<void> {
  const slots = [...batch.slots.values()];
  // A group started ahead may still be on its way (its start, its items' records): its documents'
  // attempts are taken back too.
  await Promise.allSettled(slots.flatMap((s) => [s.groupStart, s.recorded]).filter((p) => p !== undefined));
  const startedAhead = new Set(slots.filter((s) => s.startedAhead).map((s) => s.id));
  await batch.deps.work.unclaimDocuments(documentIds, batch.workerId, startedAhead);
  for (const id of documentIds) batch.slot(id).phase = 'returned';
}

/** Stops what the batch began for documents it will not take, and checks for deletions (commit.ts). */
async function wrapUp(batch: Batch): Promise<void> {
  const { deps } = batch;
  const slots = [...batch.slots.values()];
  // Bytes read ahead for documents the batch did not start (it stopped early): not wanted now.
  for (const slot of slots) if (slot.fetched && !slot.begun) slot.abort.abort();
  batch.ending.abort();
  await Promise.allSettled(
    slots.flatMap((s) => [s.fetched, s.groupParse, s.recorded]).filter((p) => p !== undefined),
  );
  await batch.sourceItemBatch
    ?.close()
    .catch((err: unknown) => deps.log.warn({ err }, 'could not close what the sources held'));
  await rm(batch.workDir, { recursive: true, force: true });
  await discardDeleted(batch).catch((err: unknown) =>
    deps.log.warn({ err, workspaceId: batch.workspaceId }, 'could not check for deleted documents'),
  );
}

/**
 * One document's turn, everything up to the index: its start (start.ts), its fetch when its bytes
 * are not stored yet (fetch.ts), its parse and chunks (parse.ts).
 */
async function takeTurn(
  batch: Batch,
  claimed: DocumentRecord,
  next: DocumentRecord | undefined,
): Promise<Prepared> {
  const { deps, workerId } = batch;
  const slot = batch.slot(claimed.id);
  slot.phase = 'started';
  slot.begun = true;
  slot.startedAhead = false;
  const { signal } = slot.abort;
  const fetchFirst = fetchesFirst(claimed);
  const started = await startDocument(batch, claimed).catch((error: unknown) => ({ error }));
  if ('error' in started) return { kind: 'error', doc: claimed, error: started.error };
  if (!started.held) return { kind: 'lost', doc: claimed };
  if (started.runStatus === 'paused') return { kind: 'paused', doc: claimed };
  if (started.runStatus === 'cancelled') {
    return {
      kind: 'failed',
      doc: claimed,
      result: {
        status: 'cancelled',
        errorCode: 'cancelled',
        errorMessage: 'The run was cancelled before this document was processed.',
      },
    };
  }
  let doc: DocumentRecord = { ...claimed, attempts: started.attempts };
  try {
    if (fetchFirst) {
      const fetching = doc;
      doc = await batch.timed(signal, 'fetching', async () => {
        // An item of a group is fetched, recorded (recordTogether) and parsed with it.
        await slot.groupParse;
        const bytes = fetchBytes(batch, fetching);
        if (next && fetchesFirst(next)) fetchBytes(batch, next);
        return recordFetched(batch, fetching, await bytes);
      });
    }
    // Also for a document whose bytes an earlier attempt stored before it stopped.
    if (doc.indexedSha256 && doc.sha256 === doc.indexedSha256) {
      await dropWorkFile(batch, doc.id);
      if (await deps.work.keepIndexedVersion(doc.id, workerId)) return { kind: 'unchanged', doc };
      throw new LeaseLost();
    }
    const current = doc;
    const parsed = await batch.timed(signal, 'parsing', () => parseDocument(batch, current, next, signal));
    return await prepareParsed(batch, current, parsed, signal);
  } catch (err) {
    if (err instanceof DocumentFailure) {
      const status =
        err.code === 'needs_ocr' ? 'needs_ocr' : err.code === 'cancelled' ? 'cancelled' : 'failed';
      return { kind: 'failed', doc, result: { status, errorCode: err.code, errorMessage: err.message } };
    }
    if (err instanceof LeaseLost || signal.aborted) return { kind: 'lost', doc };
    return { kind: 'error', doc, error: err };
  }
}
