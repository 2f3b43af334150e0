import type { DocumentCounts, RunProgress } from '@service/sdk';
import { describe, expect, it } from 'vitest';
import {
  announceRun,
  describeChanges,
  describeRun,
  documentProgress,
  foundNothing,
  naturalCompare,
  nextPoll,
  pageOf,
  runName,
  runSegments,
} from '../../src/lib/runs.js';

function counts(c: Partial<DocumentCounts>): DocumentCounts {
  const all = { queued: 0, processing: 0, ready: 0, needs_ocr: 0, failed: 0, cancelled: 0, deleted: 0, ...c };
  return { ...all, total: Object.values(all).reduce((a, b) => a + b, 0) };
}

describe('what a run looks like', () => {
  it('shows a cancelled run as processed and cancelled parts, not as done', () => {
    const c = counts({ ready: 12, failed: 1, cancelled: 27 });
    expect(runSegments(c).map((s) => [s.state, s.count, s.share, s.tone])).toEqual([
      ['ready', 12, 0.3, 'ok'],
      ['failed', 1, 0.025, 'bad'],
      ['cancelled', 27, 0.675, 'cancelled'],
    ]);
    expect(describeRun('cancelled', c)).toBe(
      'Cancelled: 13 of 40 documents processed (12 ready, 1 failed); 27 cancelled before they were processed.',
    );
  });

  it('shows a failed run in the failure colour and words', () => {
    const c = counts({ failed: 3 });
    expect(runSegments(c).map((s) => [s.state, s.share, s.tone])).toEqual([['failed', 1, 'bad']]);
    expect(describeRun('failed', c)).toBe('Failed: 3 of 3 documents processed (3 failed).');
  });

  it('says what is left while a run is open, and announces it in tenths', () => {
    const c = counts({ ready: 5, processing: 2, queued: 33 });
    expect(describeRun('processing', c)).toBe(
      'Processing: 5 of 40 documents processed (5 ready); 2 processing, 33 queued.',
    );
    expect(announceRun('processing', c)).toBe('Processing: 10 % of 40 documents finished.');
    expect(announceRun('processing', counts({ ready: 6, processing: 2, queued: 32 }))).toBe(
      'Processing: 10 % of 40 documents finished.',
    );
    expect(announceRun('completed', counts({ ready: 1 }))).toBe(
      'Completed: 1 of 1 document processed (1 ready).',
    );
  });

  it('gives each document a bar for what happened to it', () => {
    expect(documentProgress('cancelled', 'done')).toEqual({ value: 0, caption: 'not processed: cancelled' });
    expect(documentProgress('failed', 'done')).toEqual({ value: 1, caption: 'processed: failed' });
    expect(documentProgress('processing', 'chunking')).toEqual({ value: 0.6, caption: 'chunking' });
    expect(documentProgress('processing', 'fetching')).toEqual({ value: 0.2, caption: 'fetching' });
    expect(documentProgress('queued', 'queued')).toEqual({ value: 0, caption: 'waiting' });
    expect(documentProgress('ready', 'done').value).toBe(1);
  });

  it('says a document a worker has claimed but not started is starting, not "queued"', () => {
    expect(documentProgress('processing', 'queued')).toEqual({ value: 0, caption: 'starting' });
  });
});

describe('naming a run', () => {
  it('says what started it', () => {
    const c = (total: number) => ({ total });
    expect(runName({ kind: 'upload', counts: c(3) })).toBe('Upload of 3 files');
    expect(runName({ kind: 'upload', counts: c(1) })).toBe('Upload of 1 file');
    expect(runName({ kind: 'urls', counts: c(2) })).toBe('Ingestion of 2 URLs');
    expect(runName({ kind: 'sync', counts: c(40) }, 'Handbook folder')).toBe('Sync of Handbook folder');
    expect(runName({ kind: 'sync', counts: c(0) })).toBe('Sync of a source');
    expect(runName({ kind: 'reprocess', counts: c(97) })).toBe('97 documents processed again');
  });
});

describe('a sync that found nothing', () => {
  const none = { added: 0, changed: 0, deleted: 0, unchanged: 3 };
  it('is told by what the sync recorded, never by its counts alone', () => {
    expect(foundNothing({ kind: 'sync', status: 'completed', changes: none })).toBe(true);
    expect(foundNothing({ kind: 'sync', status: 'completed', changes: { ...none, deleted: 1 } })).toBe(false);
    // A server that records nothing (or a sync that applied nothing) marks nothing.
    expect(foundNothing({ kind: 'sync', status: 'completed', changes: null })).toBe(false);
    expect(foundNothing({ kind: 'sync', status: 'failed', changes: none })).toBe(false);
    expect(foundNothing({ kind: 'upload', status: 'completed', changes: none })).toBe(false);
  });
  it('says what it found in words', () => {
    expect(describeChanges(none)).toBe('No changes: the sync found nothing new (3 items unchanged).');
    expect(describeChanges({ added: 1, changed: 2, deleted: 1, unchanged: 1 })).toBe(
      'The sync found 1 new, 2 changed, 1 gone from the source; 1 item unchanged.',
    );
  });
});

describe('polling a run', () => {
  const progress = (status: RunProgress['status'], c: DocumentCounts): RunProgress => ({
    id: 'run_1',
    workspaceId: 'ws_1',
    status,
    kind: 'upload',
    createdAt: '',
    updatedAt: '',
    finishedAt: null,
    sourceId: null,
    error: null,
    skipped: null,
    changes: null,
    counts: c,
    failures: [],
    reprocessedBy: [],
    progress: 1,
    done: ['completed', 'failed', 'cancelled'].includes(status),
    documents: [],
    documentsPerSecond: null,
    etaSeconds: null,
  });

  it('keeps asking while a cancelled run still has a document in progress, then once more', () => {
    expect(nextPoll(progress('processing', counts({ queued: 3 })), false)).toBe(1000);
    expect(nextPoll(progress('paused', counts({ queued: 3 })), false)).toBe(3000);
    // Cancelled, but the document that was being processed has not finished yet.
    expect(nextPoll(progress('cancelled', counts({ processing: 1, cancelled: 99 })), false)).toBe(1000);
    const settled = progress('cancelled', counts({ ready: 1, cancelled: 99 }));
    expect(nextPoll(settled, false)).toBe(1000);
    expect(nextPoll(settled, true)).toBeUndefined();
  });
});

describe('long runs', () => {
  it('sorts file names as people number them', () => {
    const names = ['file10.txt', 'File2.txt', 'file1.txt', 'file2b.txt', 'file100.txt'];
    expect(names.sort(naturalCompare)).toEqual([
      'file1.txt',
      'File2.txt',
      'file2b.txt',
      'file10.txt',
      'file100.txt',
    ]);
  });

  it('pages a list and keeps the page within it', () => {
    const items = Array.from({ length: 120 }, (_, i) => i);
    expect(pageOf(items, 1, 50)).toEqual({ items: items.slice(50, 100), page: 1, pages: 3 });
    expect(pageOf(items, 7, 50).page).toBe(2);
    expect(pageOf([], 3, 50)).toEqual({ items: [], page: 0, pages: 1 });
  });
});
