// The loop (processing/pipeline/loop.ts): claims, a batch's documents one after another, and where a
// transient failure stops it.
import { describe, expect, it } from 'vitest';
import { artifactKeys } from '../../../src/domain/artifacts.js';
import type { ObjectStore } from '../../../src/domain/ports.js';
import { DependencyUnavailable } from '../../../src/errors.js';
import { processDocuments } from '../../../src/processing/pipeline/index.js';
import {
  deps,
  index,
  jobs,
  MAX_ATTEMPTS,
  objects,
  TEXT,
  upload,
  usePipelineBench,
  WORKER,
  work,
} from '../../support/pipeline.js';

usePipelineBench();

describe('processing a batch of documents, one after another', () => {
  it('parses, chunks and indexes each one, stores their text, and completes the run once its index is folded', async () => {
    await upload('doc_a', TEXT);
    await upload('doc_b', '# Other\n\nParking is free on weekends.\n');
    await processDocuments(deps(), ['doc_a', 'doc_b'], WORKER);

    for (const id of ['doc_a', 'doc_b']) {
      const doc = work.document(id);
      expect(doc).toMatchObject({ status: 'ready', stage: 'done', mediaType: 'text/markdown', attempts: 1 });
      expect(doc.chunkCount).toBeGreaterThan(0);
      expect(await index.countDocumentRows('ws_test', id)).toBe(doc.chunkCount);
    }
    expect((await objects.getBuffer(artifactKeys.text('doc_a')))?.toString()).toContain('vacation days');
    // The maintenance that folds the rows in is asked for at once, and completes the run.
    expect(work.runs.get('run_1')?.status).toBe('processing');
    expect(jobs.sent('maintainWorkspace').map((j) => j.payload)).toEqual([
      { workspaceId: 'ws_test', urgent: true },
    ]);
    await work.completeIndexedRuns(await work.runsAwaitingIndex('ws_test'));
    expect(work.runs.get('run_1')?.status).toBe('completed');
  });

  it('takes one workspace per batch and sends the others back ahead of the queue', async () => {
    await upload('doc_a', TEXT);
    await upload('doc_x', TEXT, { runId: 'run_2', workspaceId: 'ws_other' });
    await processDocuments(deps(), ['doc_a', 'doc_x'], WORKER);

    expect(work.document('doc_a').status).toBe('ready');
    expect(work.document('doc_x')).toMatchObject({ status: 'queued', attempts: 0 });
    expect(jobs.sent('processDocument')).toEqual([
      { name: 'processDocument', payload: { documentId: 'doc_x' }, options: { ahead: true } },
    ]);
  });

  it('fails a document whose attempts are used up, with a reason, and settles its run', async () => {
    await upload('doc_a', TEXT, { attempts: MAX_ATTEMPTS });
    await processDocuments(deps(), ['doc_a'], WORKER);

    expect(work.document('doc_a')).toMatchObject({ status: 'failed', errorCode: 'processing_failed' });
    expect(work.document('doc_a').errorMessage).toContain(`after ${MAX_ATTEMPTS} attempts`);
    expect(work.runs.get('run_1')?.status).toBe('failed');
    expect(index.rows.size).toBe(0);
  });

  it('fails a document that cannot be parsed at once, without a retry, and the batch goes on', async () => {
    await upload('doc_empty', '');
    await upload('doc_a', TEXT);
    await processDocuments(deps(), ['doc_empty', 'doc_a'], WORKER);

    expect(work.document('doc_empty')).toMatchObject({
      status: 'failed',
      errorCode: 'empty_document',
      attempts: 1,
    });
    expect(work.document('doc_a').status).toBe('ready');
    await work.completeIndexedRuns(await work.runsAwaitingIndex('ws_test'));
    expect(work.runs.get('run_1')?.status).toBe('completed');
  });

  it('takes a document on its last attempt alone: the others wait for the next batch', async () => {
    await upload('doc_a', TEXT, { attempts: MAX_ATTEMPTS - 1 });
    await upload('doc_b', TEXT, { attempts: 1 });
    await processDocuments(deps(), ['doc_a', 'doc_b'], WORKER);
    expect(work.document('doc_a')).toMatchObject({ status: 'ready', attempts: MAX_ATTEMPTS });
    expect(work.document('doc_b')).toMatchObject({ status: 'queued', attempts: 1 });
    expect(jobs.sent('processDocument')).toEqual([
      { name: 'processDocument', payload: { documentId: 'doc_b' }, options: { ahead: true } },
    ]);
  });

  it('stops the batch at a transient failure: the documents not started go back uncharged', async () => {
    await upload('doc_a', TEXT);
    await upload('doc_b', TEXT);
    const down: ObjectStore = {
      ...objects,
      get: async () => {
        throw new DependencyUnavailable(
          'objectStorage',
          'object storage is unavailable: connect ECONNREFUSED',
        );
      },
    };
    await expect(processDocuments(deps({ objects: down }), ['doc_a', 'doc_b'], WORKER)).rejects.toThrow(
      'ECONNREFUSED',
    );
    expect(work.document('doc_a')).toMatchObject({ status: 'processing', attempts: 1 });
    expect(work.document('doc_b')).toMatchObject({ status: 'queued', attempts: 0 });
    expect(work.documents.get('doc_b')?.leaseOwner).toBeNull();
  });
});
