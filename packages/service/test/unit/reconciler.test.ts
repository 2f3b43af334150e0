import { describe, expect, it } from 'vitest';
import { silentLog } from '../../src/domain/log.js';
import type { LeaseStore, WorkspaceDeletionStore } from '../../src/domain/stores.js';
import { type ReconcilerDeps, reconciler, resendUnfinished } from '../../src/main/reconciler.js';
import type { SyncStore } from '../../src/sources/store.js';
import { MemorySearchIndex } from '../support/fake-index.js';
import { MemoryJobQueue } from '../support/fake-queue.js';
import { documentRecord, MemoryWorkStore } from '../support/fakes.js';

/** The reconciler's lease as one row: whoever holds it until another asks after it lapsed (never, here). */
class OneLease implements LeaseStore {
  holder: string | undefined;
  async acquire(_name: string, holder: string): Promise<boolean> {
    this.holder ??= holder;
    return this.holder === holder;
  }
  async release(_name: string, holder: string): Promise<void> {
    if (this.holder === holder) this.holder = undefined;
  }
}

function bench() {
  const work = new MemoryWorkStore();
  const jobs = new MemoryJobQueue();
  const leases = new OneLease();
  const purges: number[] = [];
  const dailyPurges: number[] = [];
  const deletionsClaimed: number[] = [];
  const deps: ReconcilerDeps = {
    work,
    jobs,
    leases,
    index: new MemorySearchIndex(),
    objects: { delete: async () => {} } as unknown as ReconcilerDeps['objects'],
    deletions: {
      claimDueDeletions: async (limit: number) => {
        deletionsClaimed.push(limit);
        return [];
      },
    } as unknown as WorkspaceDeletionStore,
    syncs: { dueSyncs: async () => ['src_due'] } as unknown as SyncStore,
    evaluating: { evaluations: { lostEvaluations: async () => ['eval_lost'] } },
    embeddings: undefined,
    audit: {
      purgeOlderThan: async (days: number) => {
        purges.push(days);
        return 0;
      },
    },
    auditRetentionDays: 90,
    quotas: {
      purgeDailyUse: async (days: number) => {
        dailyPurges.push(days);
        return 0;
      },
    },
    leaseSeconds: 60,
    reconcileIntervalSeconds: 15,
    log: silentLog,
  };
  return { deps, work, jobs, leases, purges, dailyPurges, deletionsClaimed };
}

describe('the reconciler', () => {
  it('does nothing while another worker holds its lease', async () => {
    const { deps, jobs, leases, purges } = bench();
    leases.holder = 'wrk_other';
    expect(await reconciler(deps, 'wrk_a').pass()).toEqual({ ran: false, enqueued: 0, settled: 0 });
    expect(jobs.sent('syncSource')).toEqual([]);
    expect(purges).toEqual([]);
  });

  it('carries out each duty once a pass: lost jobs, due syncs, lost evaluations, runs, index, deletions, audit', async () => {
    const { deps, work, jobs, purges, dailyPurges, deletionsClaimed } = bench();
    // A document whose job was lost: waiting an hour, while the engine holds no job for it.
    work.addDocument(documentRecord({ id: 'doc_lost', runId: 'run_lost' }));
    // A run whose one document failed, not settled yet.
    work.addDocument(documentRecord({ id: 'doc_done', runId: 'run_done' }));
    work.documents.get('doc_done')!.record.status = 'failed';
    work.now += 3600_000;

    const pass = await reconciler(deps, 'wrk_a').pass();
    expect(pass).toEqual({ ran: true, enqueued: 1, settled: 1 });
    expect(jobs.sent('processDocument').map((j) => j.payload)).toEqual([{ documentId: 'doc_lost' }]);
    expect(jobs.sent('syncSource').map((j) => j.payload)).toEqual([{ sourceId: 'src_due' }]);
    expect(jobs.sent('runEvaluation').map((j) => j.payload)).toEqual([{ evaluationId: 'eval_lost' }]);
    expect(deletionsClaimed).toEqual([10]);
    expect(purges).toEqual([90]);
    // With the audit log, the quotas' daily counts older than a month.
    expect(dailyPurges).toEqual([31]);
    expect(work.runs.get('run_done')?.status).toBe('failed');

    // The next pass: the document was handed back once.
    const next = await reconciler(deps, 'wrk_a').pass();
    expect(next.enqueued).toBe(0);
  });

  it('purges the audit log at most once an hour per reconciler', async () => {
    const { deps, purges } = bench();
    const r = reconciler(deps, 'wrk_a');
    await r.pass();
    await r.pass();
    expect(purges).toEqual([90]);
  });

  it('asks for the maintenance of workspaces whose runs wait for their index', async () => {
    const { deps, work, jobs } = bench();
    work.addDocument(documentRecord({ id: 'doc_a', runId: 'run_a', workspaceId: 'ws_a' }));
    work.documents.get('doc_a')!.record.status = 'ready';
    await work.settleRun('run_a');
    await reconciler(deps, 'wrk_a').pass();
    expect(jobs.sent('maintainWorkspace').map((j) => j.payload)).toEqual([
      { workspaceId: 'ws_a', urgent: true },
    ]);
  });

  it('sends every unfinished document again at start, however recently queued', async () => {
    const { deps, work, jobs } = bench();
    for (const id of ['doc_a', 'doc_b']) work.addDocument(documentRecord({ id, runId: 'run_1' }));
    work.now += 1;
    expect(await resendUnfinished(deps)).toBe(2);
    expect(jobs.sent('processDocument').map((j) => j.payload)).toEqual([
      { documentId: 'doc_a' },
      { documentId: 'doc_b' },
    ]);
  });
});
