// Leases (processing/pipeline/leases.ts): renewed for the documents a batch still holds; a document
// another worker took is aborted. The timers are vitest's, so that no test waits for a lease's third.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Batch } from '../../../src/processing/pipeline/batch.js';
import { holdLeases } from '../../../src/processing/pipeline/leases.js';
import { deps, TEXT, upload, usePipelineBench, WORKER, work } from '../../support/pipeline.js';

usePipelineBench();

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("holding a batch's leases", () => {
  it('renews a third of a lease apart those still held, and aborts the one another worker took', async () => {
    const ids = ['doc_a', 'doc_b', 'doc_c'];
    for (const id of ids) await upload(id, TEXT);
    const claim = await work.claimDocuments(ids, WORKER, { leaseSeconds: 30, maxAttempts: 3, maxBytes: 1e6 });
    const batch = new Batch(deps({ leaseSeconds: 30 }), WORKER, claim.claimed, 'auto');
    const renewed: string[][] = [];
    const renew = work.renewLeases.bind(work);
    work.renewLeases = async (documentIds, workerId, leaseSeconds) => {
      renewed.push(documentIds);
      return renew(documentIds, workerId, leaseSeconds);
    };
    const leases = holdLeases(batch);
    try {
      await vi.advanceTimersByTimeAsync(9_999);
      expect(renewed).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(renewed).toEqual([ids]);

      // doc_a is finished; doc_b is taken over before the next renewal.
      batch.slot('doc_a').phase = 'finished';
      work.takeOver('doc_b', 'wrk_other');
      await vi.advanceTimersByTimeAsync(10_000);
      expect(renewed[1]).toEqual(['doc_b', 'doc_c']);
      expect(batch.slot('doc_b').abort.signal.aborted).toBe(true);
      expect(batch.slot('doc_c').abort.signal.aborted).toBe(false);
      expect(batch.held()).toEqual(['doc_c']);

      await vi.advanceTimersByTimeAsync(10_000);
      expect(renewed[2]).toEqual(['doc_c']);
    } finally {
      leases.stop();
    }
    await vi.advanceTimersByTimeAsync(30_000);
    expect(renewed).toHaveLength(3);
  });
});
