import type { ClaimOptions } from './stores.js';

/**
 * Documents on a later attempt (not their last) that one batch takes together. A worker that died
 * (killed, out of memory, its node lost) leaves every document it had started on a later attempt:
 * up to two groups of small documents. Taken one batch each, they cost a batch and an index commit
 * each (the scale-out benchmark: a killed worker's 200 documents, 214 commits). Taken eight at a
 * time and started one after another, a document that kills its worker again raises no other's
 * attempts (the rest of its batch waits for its leases to lapse), and on its last attempt it is
 * taken alone, where the failure is pinned on it.
 */
export const RETRY_BATCH_DOCUMENTS = 8;

/** Which documents a claimable one may share a batch with, and how much of the batch's budget it uses. */
export interface BatchPlace {
  /** Documents share a batch only with documents of the same kind. */
  kind: 'first' | 'retry';
  /** Bytes counted against the batch's budget; infinite for a document that goes alone. */
  weight: number;
}

/**
 * A document's place in a batch. On its first attempt: its size (of unknown size, a URL not fetched
 * yet: alone). On a later attempt: among at most RETRY_BATCH_DOCUMENTS others on a later attempt,
 * and alone when that attempt is its last or its size is unknown.
 */
export function batchPlace(
  doc: { attempts: number; sizeBytes: number | null },
  options: Pick<ClaimOptions, 'maxAttempts' | 'maxBytes'>,
): BatchPlace {
  if (doc.attempts === 0) return { kind: 'first', weight: doc.sizeBytes ?? Number.POSITIVE_INFINITY };
  const last = doc.attempts >= options.maxAttempts - 1;
  if (last || doc.sizeBytes === null) return { kind: 'retry', weight: Number.POSITIVE_INFINITY };
  return { kind: 'retry', weight: Math.max(doc.sizeBytes, options.maxBytes / RETRY_BATCH_DOCUMENTS) };
}

/** Whether a document with this place joins a batch that has `kind` and `bytes` so far. */
export function joinsBatch(
  place: BatchPlace,
  batch: { kind: BatchPlace['kind']; bytes: number },
  maxBytes: number,
): boolean {
  return place.kind === batch.kind && batch.bytes + place.weight <= maxBytes;
}

/** A document a batch could take, with its place (batchPlace). */
export interface Claimable {
  id: string;
  workspaceId: string;
  place: BatchPlace;
}

/**
 * The documents one batch takes from `claimable`, in order, all of `workspaceId`: the first of them,
 * then those of the same kind while the bytes add up to at most `maxBytes`, at most `maxDocuments`
 * in all. The others are left (`left`), of another workspace or over the budget.
 */
export function formBatch<C extends Claimable>(
  claimable: readonly C[],
  workspaceId: string,
  maxBytes: number,
  maxDocuments = Number.POSITIVE_INFINITY,
): { take: C[]; left: C[] } {
  const take: C[] = [];
  const left: C[] = [];
  let batch: { kind: BatchPlace['kind']; bytes: number } | undefined;
  for (const c of claimable) {
    if (c.workspaceId !== workspaceId || take.length >= maxDocuments) left.push(c);
    else if (!batch) {
      batch = { kind: c.place.kind, bytes: c.place.weight };
      take.push(c);
    } else if (joinsBatch(c.place, batch, maxBytes)) {
      batch.bytes += c.place.weight;
      take.push(c);
    } else left.push(c);
  }
  return { take, left };
}
