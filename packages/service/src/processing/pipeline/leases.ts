import type { Batch } from './batch.js';

/**
 * Renews, a third of a lease apart, the leases of the batch's documents still held; a document whose
 * lease another worker took is aborted, and no longer held.
 */
export function holdLeases(batch: Batch): { stop(): void } {
  const { deps, workerId } = batch;
  const timer = setInterval(
    () => {
      const ids = batch.held();
      if (ids.length === 0) return;
      deps.work
        .renewLeases(ids, workerId, deps.leaseSeconds)
        .then((kept) => {
          for (const id of ids) if (!kept.has(id)) batch.slot(id).abort.abort();
        })
        .catch((err: unknown) => deps.log.warn({ err }, 'lease renewal failed'));
    },
    Math.max(1000, (deps.leaseSeconds * 1000) / 3),
  );
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
