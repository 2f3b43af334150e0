import { describe, expect, it } from 'vitest';
import type { RunActivity, RunStatus, RunView } from '../../src/domain/types.js';
import { runPace } from '../../src/domain/views.js';

function run(
  status: RunStatus,
  left: { queued: number; processing: number },
  activity: RunActivity,
): RunView {
  const now = new Date();
  return {
    id: 'run_1',
    accountId: 'acc_1',
    workspaceId: 'ws_1',
    status,
    kind: 'upload',
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
    sourceId: null,
    error: null,
    counts: {
      total: left.queued + left.processing + activity.processed,
      queued: left.queued,
      processing: left.processing,
      ready: activity.processed,
      needs_ocr: 0,
      failed: 0,
      cancelled: 0,
      deleted: 0,
    },
    failures: [],
    activity,
  };
}

describe('the pace of a run', () => {
  it('estimates what is left at the pace of the last minute of work', () => {
    // 300 done in the last 60 s (5 per second), 1,000 to go: 200 s.
    const r = run(
      'processing',
      { queued: 990, processing: 10 },
      { processed: 2000, busySeconds: 400, recentlyProcessed: 300, windowSeconds: 60 },
    );
    expect(runPace(r)).toEqual({ documentsPerSecond: 5, etaSeconds: 200 });
  });

  it('counts from the first start when work began less than a minute ago', () => {
    const r = run(
      'processing',
      { queued: 7, processing: 1 },
      { processed: 4, busySeconds: 2, recentlyProcessed: 4, windowSeconds: 2 },
    );
    expect(runPace(r)).toEqual({ documentsPerSecond: 2, etaSeconds: 4 });
  });

  it('has no estimate before anything was processed in that minute, nor while paused', () => {
    const idle = { processed: 0, busySeconds: 0, recentlyProcessed: 0, windowSeconds: 30 };
    expect(runPace(run('processing', { queued: 1, processing: 1 }, idle))).toEqual({
      documentsPerSecond: null,
      etaSeconds: null,
    });
    const busy = { processed: 10, busySeconds: 5, recentlyProcessed: 10, windowSeconds: 5 };
    expect(runPace(run('paused', { queued: 5, processing: 0 }, busy))).toEqual({
      documentsPerSecond: null,
      etaSeconds: null,
    });
  });

  it('reports a finished run at its overall pace with nothing left', () => {
    const done = { processed: 120, busySeconds: 40, recentlyProcessed: 120, windowSeconds: 60 };
    expect(runPace(run('completed', { queued: 0, processing: 0 }, done))).toEqual({
      documentsPerSecond: 3,
      etaSeconds: 0,
    });
    const none = { processed: 0, busySeconds: 0, recentlyProcessed: 0, windowSeconds: 0 };
    expect(runPace(run('cancelled', { queued: 0, processing: 0 }, none))).toEqual({
      documentsPerSecond: null,
      etaSeconds: 0,
    });
  });
});
