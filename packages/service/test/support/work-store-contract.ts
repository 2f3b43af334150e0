// Over 400 lines: one contract, run against both repositories; split, the two halves would drift.
/**
 * The rules of the work store, as one suite that runs against the PostgreSQL repository (integration)
 * and against the in-memory fake the unit tests use: so the pipeline's unit tests meet the answers
 * production gives.
 */
import { describe, expect, it } from 'vitest';
import { RETRY_BATCH_DOCUMENTS } from '../../src/domain/batches.js';
import type { ClaimOptions, WorkStore } from '../../src/domain/stores.js';
import type { DocumentRecord, RunStatus } from '../../src/domain/types.js';
import { startDocument } from './start.js';

export interface WorkStoreFixture {
  work: WorkStore;
  /**
   * A run in `status` with one queued document of 1 byte per entry of `attempts` (its attempts so
   * far), in the fixture's one workspace unless `where` names an account and one of its workspaces.
   */
  seed(
    status: RunStatus,
    attempts: number[],
    where?: { accountId: string; workspaceId: string },
  ): Promise<{ runId: string; documentIds: string[] }>;
  setRunStatus(runId: string, status: RunStatus): Promise<void>;
  document(id: string): Promise<DocumentRecord>;
  runStatus(runId: string): Promise<RunStatus>;
  /** Moves time `seconds` (and a little) forward for the leases, so that ones given for `seconds` expire. */
  expireLeases(seconds: number): Promise<void>;
  /** Moves time `seconds` (and a little) forward for everything: leases, waiting documents, hand-backs. */
  passTime(seconds: number): Promise<void>;
  close?(): Promise<void>;
}

const options = (fields: Partial<ClaimOptions> = {}): ClaimOptions => ({
  leaseSeconds: 30,
  maxAttempts: 3,
  maxBytes: 1024,
  ...fields,
});

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
        const first = await f.work.claimDocuments([id], 'wrk_a', options({ leaseSeconds: 1 }));
        expect(first.claimed.map((d) => d.id)).toEqual([id]);
        expect(await startDocument(f.work, id, 'wrk_a', 'parsing')).toEqual({
          held: true,
          runStatus: 'processing',
          attempts: 1,
        });
        const other = await f.work.claimDocuments([id], 'wrk_b', options());
        expect(other).toEqual({
          claimed: [],
          deferred: [],
          exhausted: [],
          skipped: [{ documentId: id, reason: 'leased_elsewhere' }],
        });
        expect(await f.work.requeueLostDocuments(10, 3600)).toEqual([]);
        await f.expireLeases(1);
        expect(await f.work.requeueLostDocuments(10, 3600)).toEqual([id]);
        expect(await f.work.renewLeases([id], 'wrk_b', 30)).toEqual(new Set());
        expect((await f.work.claimDocuments([id], 'wrk_b', options())).claimed.map((d) => d.id)).toEqual([
          id,
        ]);
        expect(await startDocument(f.work, id, 'wrk_b', 'parsing')).toMatchObject({ attempts: 2 });
        expect(await f.work.setStages([id], 'wrk_a', 'chunking')).toEqual(new Map());
        expect(await f.work.setStages([id], 'wrk_b', 'chunking')).toEqual(new Map([[id, 'processing']]));
        expect(await f.work.renewLeases([id], 'wrk_b', 30)).toEqual(new Set([id]));
      }),
    );

    it(
      'takes documents on a later attempt a few at a time, apart from first attempts, and alone on their last',
      withFixture(async (f) => {
        // Eleven documents a dead worker had started (attempts 1 of 3), two never started, and one
        // on its last attempt, in the order their jobs come.
        const { documentIds } = await f.seed('processing', [0, ...Array(11).fill(1), 0, 2]);
        const [fresh, ...rest] = documentIds as string[];
        const retried = rest.slice(0, 11);
        const [freshToo, last] = rest.slice(11) as [string, string];
        const ids = [...retried, fresh!, freshToo, last];

        const first = await f.work.claimDocuments(ids, 'wrk_a', options());
        expect(first.claimed.map((d) => d.id)).toEqual(retried.slice(0, RETRY_BATCH_DOCUMENTS));
        expect(first.deferred).toEqual([...retried.slice(RETRY_BATCH_DOCUMENTS), fresh, freshToo, last]);

        const second = await f.work.claimDocuments(first.deferred, 'wrk_b', options());
        expect(second.claimed.map((d) => d.id)).toEqual(retried.slice(RETRY_BATCH_DOCUMENTS));
        expect(second.deferred).toEqual([fresh, freshToo, last]);

        // First attempts go together again; the last attempt goes alone, whatever comes first.
        const third = await f.work.claimDocuments([last, fresh!, freshToo], 'wrk_c', options());
        expect([third.claimed.map((d) => d.id), third.deferred]).toEqual([[last], [fresh, freshToo]]);
        const fourth = await f.work.claimDocuments([fresh!, freshToo], 'wrk_c', options());
        expect(fourth.claimed.map((d) => d.id)).toEqual([fresh, freshToo]);

        // With two attempts in all, a document's second attempt is its last: alone.
        const { documentIds: twice } = await f.seed('processing', [1, 1]);
        const alone = await f.work.claimDocuments(twice, 'wrk_d', options({ maxAttempts: 2 }));
        expect([alone.claimed.map((d) => d.id), alone.deferred]).toEqual([[twice[0]], [twice[1]]]);
      }),
    );

    it(
      'starts several documents in one write, answering each, and takes back the attempt of one unclaimed unstarted',
      withFixture(async (f) => {
        const { runId, documentIds } = await f.seed('processing', [0, 0, 0]);
        const [a, b, c] = documentIds as [string, string, string];
        await f.work.claimDocuments([a, b], 'wrk_a', options());
        await f.work.claimDocuments([c], 'wrk_b', options());
        expect(await f.work.startDocuments([a, b, c], 'wrk_a', 'parsing')).toEqual(
          new Map([
            [a, { held: true, runStatus: 'processing', attempts: 1 }],
            [b, { held: true, runStatus: 'processing', attempts: 1 }],
            [c, { held: false }],
          ]),
        );
        expect(await f.document(b)).toMatchObject({ stage: 'parsing', attempts: 1 });
        // b was started ahead of its turn, and the batch stopped before it: back uncharged.
        await f.work.unclaimDocuments([b], 'wrk_a', new Set([b]));
        expect(await f.document(b)).toMatchObject({ status: 'queued', attempts: 0 });
        expect(await f.document(a)).toMatchObject({ status: 'processing', attempts: 1 });
        // A paused run's documents are held but not started: no attempt counted.
        await f.setRunStatus(runId, 'paused');
        expect(await f.work.startDocuments([a], 'wrk_a', 'parsing')).toEqual(
          new Map([[a, { held: true, runStatus: 'paused', attempts: 0 }]]),
        );
        expect((await f.document(a)).attempts).toBe(1);
      }),
    );

    it(
      'records what several documents fetched in one write, for the documents this worker holds',
      withFixture(async (f) => {
        const { runId, documentIds } = await f.seed('processing', [0, 0, 0]);
        const [a, b, c] = documentIds as [string, string, string];
        await f.work.claimDocuments([a, b], 'wrk_a', options());
        await f.work.claimDocuments([c], 'wrk_b', options());
        const bytes = (documentId: string, n: number) => ({
          documentId,
          sizeBytes: n,
          sha256: String(n).repeat(64).slice(0, 64),
          declaredMediaType: 'text/markdown',
          filename: `${n}.md`,
        });
        const recorded = await f.work.recordFetched('wrk_a', [bytes(a, 1), bytes(b, 2), bytes(c, 3)]);
        expect([...recorded.keys()].sort()).toEqual([a, b].sort());
        expect(recorded.get(b)).toMatchObject({
          runStatus: 'processing',
          document: {
            id: b,
            sizeBytes: 2,
            filename: '2.md',
            declaredMediaType: 'text/markdown',
            stage: 'parsing',
          },
        });
        expect(await f.document(a)).toMatchObject({ sizeBytes: 1, sha256: '1'.repeat(64), stage: 'parsing' });
        // Held by another worker: left as it was.
        expect(await f.document(c)).toMatchObject({
          sizeBytes: 1,
          filename: expect.not.stringMatching('3.md'),
        });
        expect(await f.work.recordFetched('wrk_a', [])).toEqual(new Map());
        expect(await f.runStatus(runId)).toBe('processing');
      }),
    );

    it(
      'finishes only for the lease holder, and settles the run with its last document once its index is folded',
      withFixture(async (f) => {
        const { runId, documentIds } = await f.seed('processing', [0, 0]);
        const [a, b] = documentIds as [string, string];
        expect((await f.work.claimDocuments([a, b], 'wrk_a', options())).claimed.map((d) => d.id)).toEqual([
          a,
          b,
        ]);
        await startDocument(f.work, a, 'wrk_a', 'parsing');
        await startDocument(f.work, b, 'wrk_a', 'parsing');
        const ready = { documentId: a, result: { status: 'ready' as const, chunkCount: 3 } };
        expect(await f.work.finishDocuments('wrk_other', [ready])).toEqual(new Set());
        expect(await f.work.finishDocuments('wrk_a', [ready])).toEqual(new Set([a]));
        expect(await f.runStatus(runId)).toBe('processing');
        const failed = {
          status: 'failed' as const,
          errorCode: 'corrupt_document' as const,
          errorMessage: 'x',
        };
        expect(await f.work.finishDocuments('wrk_a', [{ documentId: b, result: failed }])).toEqual(
          new Set([b]),
        );
        // Done, but its searchable document's rows are not folded into the index yet: it waits.
        const workspaceId = (await f.document(a)).workspaceId;
        expect(await f.runStatus(runId)).toBe('processing');
        expect(await f.work.runsAwaitingIndex(workspaceId)).toEqual([runId]);
        await f.work.settleRun(runId);
        expect(await f.runStatus(runId)).toBe('processing');
        await f.work.completeIndexedRuns([runId]);
        expect(await f.runStatus(runId)).toBe('completed');
        expect(await f.work.runsAwaitingIndex(workspaceId)).toEqual([]);
        expect(await f.document(a)).toMatchObject({ status: 'ready', stage: 'done', chunkCount: 3 });
        expect(await f.document(b)).toMatchObject({ status: 'failed', errorCode: 'corrupt_document' });
        expect((await f.work.claimDocuments([a], 'wrk_a', options())).skipped).toEqual([
          { documentId: a, reason: 'terminal' },
        ]);
      }),
    );

    it(
      'keeps a batch within its byte budget, and claims a document that was tried before alone',
      withFixture(async (f) => {
        const { documentIds } = await f.seed('processing', [0, 0, 0]);
        const [a, b, c] = documentIds as [string, string, string];
        const budget = await f.work.claimDocuments([a, b, c], 'wrk_a', options({ maxBytes: 2 }));
        expect([budget.claimed.map((d) => d.id), budget.deferred]).toEqual([[a, b], [c]]);
        await f.work.unclaimDocuments([a, b], 'wrk_a');
        expect(await f.document(a)).toMatchObject({ status: 'queued', attempts: 0 });

        const retried = await f.seed('processing', [1, 0]);
        const [r, s] = retried.documentIds as [string, string];
        const alone = await f.work.claimDocuments([r, s], 'wrk_a', options());
        expect([alone.claimed.map((d) => d.id), alone.deferred]).toEqual([[r], [s]]);
      }),
    );

    it(
      'reports exhausted attempts, and fails a document nobody holds (the run fails with it)',
      withFixture(async (f) => {
        const { runId, documentIds } = await f.seed('processing', [3]);
        const id = documentIds[0]!;
        const claim = await f.work.claimDocuments([id], 'wrk_a', options());
        expect([claim.claimed, claim.exhausted.map((d) => d.id)]).toEqual([[], [id]]);
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
        const p = paused.documentIds[0]!;
        const c = cancelled.documentIds[0]!;
        expect((await f.work.claimDocuments([p, c], 'wrk_a', options())).skipped).toEqual([
          { documentId: p, reason: 'run_paused' },
          { documentId: c, reason: 'run_cancelled' },
        ]);
        expect(await f.document(p)).toMatchObject({ status: 'queued', attempts: 0 });
        expect(await f.document(c)).toMatchObject({ status: 'cancelled', errorCode: 'cancelled' });
        // Neither is an orphan: one waits for its run, the other is finished.
        expect(await f.work.requeueLostDocuments(10, 3600)).toEqual([]);
      }),
    );

    it(
      'does not start (nor charge) a claimed document whose run was paused meanwhile',
      withFixture(async (f) => {
        const { runId, documentIds } = await f.seed('processing', [0]);
        const id = documentIds[0]!;
        await f.work.claimDocuments([id], 'wrk_a', options());
        await f.setRunStatus(runId, 'paused');
        expect(await startDocument(f.work, id, 'wrk_a', 'parsing')).toEqual({
          held: true,
          runStatus: 'paused',
          attempts: 0,
        });
        expect(await f.document(id)).toMatchObject({ attempts: 0, stage: 'queued' });
        expect(await startDocument(f.work, id, 'wrk_b', 'parsing')).toEqual({ held: false });
      }),
    );

    it(
      'hands a waiting document back only after it waited past the bound, and not again before it waited that long again',
      withFixture(async (f) => {
        const { documentIds } = await f.seed('processing', [0]);
        const id = documentIds[0]!;
        // Its job was sent with it: nothing to do while it may simply be waiting its turn.
        expect(await f.work.requeueLostDocuments(10, 60)).toEqual([]);
        await f.passTime(61);
        expect(await f.work.requeueLostDocuments(10, 60)).toEqual([id]);
        // Handed back once: any worker's next pass leaves it alone, however often it runs.
        expect(await f.work.requeueLostDocuments(10, 60)).toEqual([]);
        await f.passTime(30);
        expect(await f.work.requeueLostDocuments(10, 60)).toEqual([]);
        await f.passTime(31);
        expect(await f.work.requeueLostDocuments(10, 60)).toEqual([id]);
      }),
    );

    it(
      'hands a document whose lease lapsed back once per lapse',
      withFixture(async (f) => {
        const { documentIds } = await f.seed('processing', [0]);
        const id = documentIds[0]!;
        await f.work.claimDocuments([id], 'wrk_a', options({ leaseSeconds: 1 }));
        await startDocument(f.work, id, 'wrk_a', 'parsing');
        expect(await f.work.requeueLostDocuments(10, 3600)).toEqual([]);
        await f.expireLeases(1);
        expect(await f.work.requeueLostDocuments(10, 3600)).toEqual([id]);
        expect(await f.work.requeueLostDocuments(10, 3600)).toEqual([]);
        // Another worker takes it, and its lease lapses too: a new lapse, handed back again.
        await f.work.claimDocuments([id], 'wrk_b', options({ leaseSeconds: 1 }));
        await startDocument(f.work, id, 'wrk_b', 'parsing');
        await f.expireLeases(1);
        expect(await f.work.requeueLostDocuments(10, 3600)).toEqual([id]);
      }),
    );

    it(
      'gives a released lease back at once, so the reconciler finds the document',
      withFixture(async (f) => {
        const { documentIds } = await f.seed('processing', [0]);
        const id = documentIds[0]!;
        await f.work.claimDocuments([id], 'wrk_a', options());
        await startDocument(f.work, id, 'wrk_a', 'parsing');
        await f.work.releaseLeases([id], 'wrk_a');
        await f.expireLeases(0);
        expect(await f.work.requeueLostDocuments(10, 3600)).toEqual([id]);
        expect((await f.work.claimDocuments([id], 'wrk_b', options())).claimed.map((d) => d.id)).toEqual([
          id,
        ]);
      }),
    );

    it(
      "takes batches in turns across accounts, then across an account's workspaces, from the queue when no job in hand has its turn",
      withFixture(async (f) => {
        const ids = (claim: { claimed: DocumentRecord[] }) => claim.claimed.map((d) => d.id);
        const b1 = { accountId: 'acc_turn_b', workspaceId: 'ws_turn_b1' };
        const { documentIds: backlog } = await f.seed('processing', [0, 0, 0, 0, 0], b1);
        const [b0, bb1, b2, b3, b4] = backlog as [string, string, string, string, string];
        expect(ids(await f.work.claimDocuments([b0, bb1], 'wrk_a', options()))).toEqual([b0, bb1]);

        // Account A's one document comes after all of B's jobs: its turn comes first all the same,
        // and its document is taken from the queue; B's jobs in hand wait for another batch.
        const { documentIds: ofA } = await f.seed('processing', [0], {
          accountId: 'acc_turn_a',
          workspaceId: 'ws_turn_a',
        });
        const turnOfA = await f.work.claimDocuments([b2, b3], 'wrk_a', options());
        expect(ids(turnOfA)).toEqual(ofA);
        expect(turnOfA.deferred).toEqual([b2, b3]);
        // A's own job, when it comes, finds its document held, by this very worker too; the batch
        // takes the oldest of B's waiting documents instead.
        const lateJob = await f.work.claimDocuments(ofA, 'wrk_a', options());
        expect(lateJob.skipped).toEqual([{ documentId: ofA[0], reason: 'leased_elsewhere' }]);
        expect(ids(lateJob)).toEqual([b2]);

        // Another workspace of B joins the round at the back: B's first workspace, last served before
        // the newcomer's run began, goes once more, then the newcomer, then the first one again.
        const { documentIds: ofB2 } = await f.seed('processing', [0], {
          accountId: 'acc_turn_b',
          workspaceId: 'ws_turn_b2',
        });
        expect(ids(await f.work.claimDocuments([b3], 'wrk_b', options()))).toEqual([b3]);
        const turnOfB2 = await f.work.claimDocuments([b4], 'wrk_b', options());
        expect(ids(turnOfB2)).toEqual(ofB2);
        expect(turnOfB2.deferred).toEqual([b4]);
        expect(ids(await f.work.claimDocuments([b4], 'wrk_b', options()))).toEqual([b4]);
      }),
    );

    it(
      'does not keep a workspace waiting while its account keeps making new ones',
      withFixture(async (f) => {
        const ids = (claim: { claimed: DocumentRecord[] }) => claim.claimed.map((d) => d.id);
        const account = 'acc_stream';
        const { documentIds: first } = await f.seed('processing', [0], {
          accountId: account,
          workspaceId: 'ws_old',
        });
        expect(ids(await f.work.claimDocuments(first, 'wrk_s', options()))).toEqual(first);
        // A second run in the served workspace (a large file, say), then one new workspace after
        // another, each with a note whose job comes first.
        const { documentIds: late } = await f.seed('processing', [0], {
          accountId: account,
          workspaceId: 'ws_old',
        });
        const { documentIds: n1 } = await f.seed('processing', [0], {
          accountId: account,
          workspaceId: 'ws_new1',
        });
        const turn = await f.work.claimDocuments(n1, 'wrk_s', options());
        expect(ids(turn)).toEqual(late);
        expect(turn.deferred).toEqual(n1);
        const { documentIds: n2 } = await f.seed('processing', [0], {
          accountId: account,
          workspaceId: 'ws_new2',
        });
        // The newcomers in the order they came.
        expect(ids(await f.work.claimDocuments([...n2, ...n1], 'wrk_s', options()))).toEqual(n1);
        expect(ids(await f.work.claimDocuments(n2, 'wrk_s', options()))).toEqual(n2);
      }),
    );
  });
}
