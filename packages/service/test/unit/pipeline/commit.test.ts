// Committing (processing/pipeline/commit.ts): the index write and the finish of a window, retries
// later, what a deletion during the batch leaves, and the maintenance asked for.
import { describe, expect, it } from 'vitest';
import { artifactKeys } from '../../../src/domain/artifacts.js';
import type { DocumentParser, ObjectStore } from '../../../src/domain/ports.js';
import { DependencyUnavailable } from '../../../src/errors.js';
import { processDocuments } from '../../../src/processing/pipeline/index.js';
import {
  deps,
  index,
  inProcessParser,
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

describe('committing what a batch parsed', () => {
  it('wakes the maintenance at once only at the end of a burst: the batch done and no other queued', async () => {
    await upload('doc_a', TEXT, { runId: 'run_1' });
    await upload('doc_b', TEXT, { runId: 'run_2' });
    jobs.queued.processDocument = 3;
    await processDocuments(deps(), ['doc_a'], WORKER);
    jobs.queued.processDocument = 0;
    await processDocuments(deps(), ['doc_b'], WORKER);
    expect(jobs.sent('maintainWorkspace').map((j) => j.options.wake)).toEqual([false, true]);
  });

  it('leaves a document another worker took over to that worker, and finishes the rest', async () => {
    await upload('doc_a', TEXT);
    await upload('doc_b', TEXT);
    const parser: DocumentParser = {
      parse: async (input, signal) => {
        if (input.path.endsWith('doc_a')) work.takeOver('doc_a', 'wrk_other');
        return inProcessParser.parse(input, signal);
      },
    };
    await processDocuments(deps({ parser }), ['doc_a', 'doc_b'], WORKER);

    expect(work.document('doc_a')).toMatchObject({ status: 'processing', stage: 'parsing' });
    expect(work.documents.get('doc_a')?.leaseOwner).toBe('wrk_other');
    expect(await index.countDocumentRows('ws_test', 'doc_a')).toBe(0);
    // Not deleted: its text stays for the worker that took it over.
    expect(await objects.getBuffer(artifactKeys.text('doc_a'))).toBeDefined();
    expect(work.reopened.size).toBe(0);
    expect(work.document('doc_b').status).toBe('ready');
    expect(work.runs.get('run_1')?.status).toBe('processing');
  });

  it('removes what it indexed for a document deleted while it worked', async () => {
    await upload('doc_a', TEXT);
    const replace = index.replaceDocuments.bind(index);
    index.replaceDocuments = async (workspaceId, documents) => {
      await replace(workspaceId, documents);
      // DELETE /v1/documents/{id} arrives after the rows were written, before the worker finishes.
      work.documents.get('doc_a')!.record.status = 'deleted';
    };
    await processDocuments(deps(), ['doc_a'], WORKER);

    expect(await index.countDocumentRows('ws_test', 'doc_a')).toBe(0);
    expect(work.document('doc_a').status).toBe('deleted');
    // Its text, written after the deletion removed the document's objects, goes too.
    expect(await objects.getBuffer(artifactKeys.text('doc_a'))).toBeUndefined();
    expect(await objects.getBuffer(artifactKeys.original('doc_a'))).toBeUndefined();
  });

  it('hands what it wrote to the deletion of a workspace deleted while it worked', async () => {
    await upload('doc_a', TEXT);
    await upload('doc_b', TEXT);
    const replace = index.replaceDocuments.bind(index);
    index.replaceDocuments = async (workspaceId, documents) => {
      await replace(workspaceId, documents);
      // DELETE /v1/workspaces/{id}: its rows go at once, and with them the documents this worker holds.
      work.deleteWorkspace('ws_test');
    };
    await processDocuments(deps(), ['doc_a', 'doc_b'], WORKER);

    // The deletion removes the workspace's index tables and these objects (the reconcilers carry it out).
    expect([...(work.reopened.get('ws_test') ?? [])].sort()).toEqual([
      'derived/doc_a/text-map.json',
      'derived/doc_a/text.md',
      'derived/doc_b/text-map.json',
      'derived/doc_b/text.md',
      'raw/doc_a',
      'raw/doc_b',
    ]);
    expect(jobs.sent('maintainWorkspace')).toEqual([]);
  });

  it('gives a transient failure back to the job engine: leases released, error thrown, retried later', async () => {
    await upload('doc_a', TEXT);
    await upload('doc_b', TEXT);
    index.failWith = new Error('index unreachable');
    await expect(processDocuments(deps(), ['doc_a', 'doc_b'], WORKER)).rejects.toThrow('index unreachable');

    for (const id of ['doc_a', 'doc_b'])
      expect(work.document(id)).toMatchObject({ status: 'processing', attempts: 1 });
    // Nobody holds them now: the reconciler would enqueue them again.
    expect(await work.requeueLostDocuments(10, 3600)).toEqual(['doc_a', 'doc_b']);

    index.failWith = undefined;
    await processDocuments(deps(), ['doc_a', 'doc_b'], WORKER);
    // Documents tried before go a few at a time (and never with first attempts): both in this batch.
    for (const id of ['doc_a', 'doc_b'])
      expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 2 });
    expect(jobs.sent('processDocument')).toEqual([]);
  });

  it('fails the document on its last attempt, naming object storage when that was down', async () => {
    await upload('doc_a', TEXT, { attempts: MAX_ATTEMPTS - 1 });
    const down: ObjectStore = {
      ...objects,
      get: async () => {
        throw new DependencyUnavailable(
          'objectStorage',
          'object storage is unavailable: connect ECONNREFUSED',
        );
      },
    };
    await expect(processDocuments(deps({ objects: down }), ['doc_a'], WORKER)).rejects.toThrow();

    const doc = work.document('doc_a');
    expect(doc).toMatchObject({ status: 'failed', errorCode: 'storage_unavailable', attempts: MAX_ATTEMPTS });
    expect(doc.errorMessage).toContain('ECONNREFUSED');
    expect(work.runs.get('run_1')?.status).toBe('failed');
  });
});
