/**
 * The rules of the work store, as one suite that runs against the PostgreSQL repository (integration)
 * and against the in-memory fake the unit tests use: so the pipeline's unit tests meet the answers
 * production gives.
 */
import { describe, expect, it } from 'vitest';
import type { WorkStore } from '../../src/domain/stores.js';
import type { DocumentRecord, RunStatus } from '../../src/domain/types.js';

export interface WorkStoreFixture {
  work: WorkStore;
  /** A run in `status` with one queued document per entry of `attempts` (its attempts so far). */
  seed(status: RunStatus, attempts: number[]): Promise<{ runId: string; documentIds: string[] }>;
  document(id: string): Promise<DocumentRecord>;
  runStatus(runId: string): Promise<RunStatus>;
  /** Moves time `seconds` (and a little) forward for the leases, so that ones given for `seconds` expire. */
  expireLeases(seconds: number): Promise<void>;
  close?(): Promise<void>;
}

export function workStoreContract(name: string, make: () => Promise<WorkStoreFixture>): void {
  describe(`the work store (${name})`, () => {
    const withFixture = (fn: (f: WorkStoreFixture) => Promise<void>) => async () => {
      const f = await make();
      try {
        await fn(f);
      } finally {
        await f.close?.();
      }
    };

    it(
      'lets one worker hold a document until its lease expires, then another',
      withFixture(async (f) => {
        const { documentIds } = await f.seed('processing', [0]);
        const id = documentIds[0]!;
        expect((await f.work.claimDocument(id, 'wrk_a', 1, 3)).kind).toBe('claimed');
        expect((await f.work.claimDocument(id, 'wrk_b', 1, 3)).kind).toBe('leased_elsewhere');
        expect(await f.work.findOrphanedDocuments(10, null)).toEqual([]);
        await f.expireLeases(1);
        expect(await f.work.findOrphanedDocuments(10, null)).toEqual([id]);
        expect(await f.work.renewLease(id, 'wrk_b', 1)).toBe(false);
        const second = await f.work.claimDocument(id, 'wrk_b', 30, 3);
        expect(second.kind === 'claimed' && second.document.attempts).toBe(2);
        expect(await f.work.setStage(id, 'wrk_a', 'parsing')).toBe(false);
        expect(await f.work.setStage(id, 'wrk_b', 'parsing')).toBe(true);
      }),
    );

    it(
      'finishes only for the lease holder, and settles the run with its last document',
      withFixture(async (f) => {
        const { runId, documentIds } = await f.seed('processing', [0, 0]);
        const [a, b] = documentIds as [string, string];
        await f.work.claimDocument(a, 'wrk_a', 30, 3);
        await f.work.claimDocument(b, 'wrk_a', 30, 3);
        expect(await f.work.finishDocument(a, 'wrk_other', { status: 'ready' })).toBe(false);
        expect(await f.work.finishDocument(a, 'wrk_a', { status: 'ready', chunkCount: 3 })).toBe(true);
        expect(await f.runStatus(runId)).toBe('processing');
        const failure = {
          status: 'failed' as const,
          errorCode: 'corrupt_document' as const,
          errorMessage: 'x',
        };
        expect(await f.work.finishDocument(b, 'wrk_a', failure)).toBe(true);
        expect(await f.runStatus(runId)).toBe('completed');
        expect(await f.document(a)).toMatchObject({ status: 'ready', stage: 'done', chunkCount: 3 });
        expect(await f.document(b)).toMatchObject({ status: 'failed', errorCode: 'corrupt_document' });
        expect((await f.work.claimDocument(a, 'wrk_a', 30, 3)).kind).toBe('terminal');
      }),
    );

    it(
      'reports exhausted attempts, and fails a document nobody holds (the run fails with it)',
      withFixture(async (f) => {
        const { runId, documentIds } = await f.seed('processing', [3]);
        const id = documentIds[0]!;
        const claim = await f.work.claimDocument(id, 'wrk_a', 30, 3);
        expect(claim.kind).toBe('attempts_exhausted');
        await f.work.failUnleased(id, 'processing_failed', 'gave up');
        expect(await f.document(id)).toMatchObject({ status: 'failed', errorCode: 'processing_failed' });
        expect(await f.runStatus(runId)).toBe('failed');
      }),
    );

    it(
      'leaves documents of a paused run queued and cancels those of a cancelled run',
      withFixture(async (f) => {
        const paused = await f.seed('paused', [0]);
        const cancelled = await f.seed('cancelled', [0]);
        expect((await f.work.claimDocument(paused.documentIds[0]!, 'wrk_a', 30, 3)).kind).toBe('run_paused');
        expect((await f.work.claimDocument(cancelled.documentIds[0]!, 'wrk_a', 30, 3)).kind).toBe(
          'run_cancelled',
        );
        expect(await f.document(paused.documentIds[0]!)).toMatchObject({ status: 'queued', attempts: 0 });
        expect(await f.document(cancelled.documentIds[0]!)).toMatchObject({
          status: 'cancelled',
          errorCode: 'cancelled',
        });
        // Neither is an orphan: one waits for its run, the other is finished.
        expect(await f.work.findOrphanedDocuments(10, null)).toEqual([]);
      }),
    );

    it(
      'gives a released lease back at once, so the reconciler finds the document',
      withFixture(async (f) => {
        const { documentIds } = await f.seed('processing', [0]);
        const id = documentIds[0]!;
        await f.work.claimDocument(id, 'wrk_a', 30, 3);
        await f.work.releaseLease(id, 'wrk_a');
        await f.expireLeases(0);
        expect(await f.work.findOrphanedDocuments(10, null)).toEqual([id]);
        expect((await f.work.claimDocument(id, 'wrk_b', 30, 3)).kind).toBe('claimed');
      }),
    );
  });
}
