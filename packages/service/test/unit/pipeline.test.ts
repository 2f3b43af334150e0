import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsObjectStore } from '../../src/adapters/objects/fs.js';
import { artifactKeys } from '../../src/domain/artifacts.js';
import { silentLog } from '../../src/domain/log.js';
import type { DocumentParser, ObjectStore, UrlFetcher } from '../../src/domain/ports.js';
import { DependencyUnavailable } from '../../src/errors.js';
import { parseBytes } from '../../src/parsing/parse.js';
import { type PipelineDeps, processDocument } from '../../src/processing/pipeline.js';
import { documentRecord, MemorySearchIndex, MemoryWorkStore } from '../support/fakes.js';

const WORKER = 'wrk_test';
const MAX_ATTEMPTS = 3;
const TEXT = '# Leave\n\nEmployees get twenty-five vacation days a year.\n\n# Travel\n\nBook trains ahead.\n';

/** The parsers themselves, in this process (the sandbox around them has its own integration tests). */
const inProcessParser: DocumentParser = {
  parse: async (input) => parseBytes(await readFile(input.path), input.filename, input.declaredMediaType),
};

const noFetcher: UrlFetcher = {
  fetch: async () => {
    throw new Error('no URL documents here');
  },
};

let tmp: string;
let work: MemoryWorkStore;
let index: MemorySearchIndex;
let objects: ObjectStore;
let maintenance: string[];

function deps(overrides: Partial<PipelineDeps> = {}): PipelineDeps {
  return {
    work,
    objects,
    index,
    parser: inProcessParser,
    fetcher: noFetcher,
    secrets: undefined,
    jobs: {
      enqueueWorkspaceMaintenance: async (workspaceId) => {
        maintenance.push(workspaceId);
      },
    },
    log: silentLog,
    tmpDir: tmp,
    leaseSeconds: 30,
    maxAttempts: MAX_ATTEMPTS,
    ...overrides,
  };
}

async function upload(id: string, body: string, fields: { attempts?: number; runId?: string } = {}) {
  await objects.put(artifactKeys.original(id), body);
  work.addDocument(documentRecord({ id, runId: fields.runId ?? 'run_1', attempts: fields.attempts ?? 0 }));
}

beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pipeline-'));
  work = new MemoryWorkStore();
  index = new MemorySearchIndex();
  objects = new FsObjectStore(path.join(tmp, 'objects'));
  maintenance = [];
});

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('processing a document', () => {
  it('parses, chunks and indexes it, stores its text, and completes the run', async () => {
    await upload('doc_a', TEXT);
    await processDocument(deps(), 'doc_a', WORKER);

    const doc = work.document('doc_a');
    expect(doc).toMatchObject({ status: 'ready', stage: 'done', mediaType: 'text/markdown', attempts: 1 });
    expect(doc.chunkCount).toBeGreaterThan(0);
    expect(await index.countDocumentRows('ws_test', 'doc_a')).toBe(doc.chunkCount);
    expect((await objects.getBuffer(artifactKeys.text('doc_a')))?.toString()).toContain('vacation days');
    expect(work.runs.get('run_1')?.status).toBe('completed');
    expect(maintenance).toEqual(['ws_test']);
  });

  it('fails a document whose attempts are used up, with a reason, and settles its run', async () => {
    await upload('doc_a', TEXT, { attempts: MAX_ATTEMPTS });
    await processDocument(deps(), 'doc_a', WORKER);

    expect(work.document('doc_a')).toMatchObject({ status: 'failed', errorCode: 'processing_failed' });
    expect(work.document('doc_a').errorMessage).toContain(`after ${MAX_ATTEMPTS} attempts`);
    expect(work.runs.get('run_1')?.status).toBe('failed');
    expect(index.rows.size).toBe(0);
  });

  it('fails a document that cannot be parsed at once, without a retry, while the run carries on', async () => {
    await upload('doc_empty', '');
    await upload('doc_a', TEXT);
    await processDocument(deps(), 'doc_empty', WORKER);

    expect(work.document('doc_empty')).toMatchObject({
      status: 'failed',
      errorCode: 'empty_document',
      attempts: 1,
    });
    expect(work.runs.get('run_1')?.status).toBe('processing');
    await processDocument(deps(), 'doc_a', WORKER);
    expect(work.runs.get('run_1')?.status).toBe('completed');
  });

  it('stops quietly when another worker took the document over, leaving it to that worker', async () => {
    await upload('doc_a', TEXT);
    const parser: DocumentParser = {
      parse: async (input, signal) => {
        work.takeOver('doc_a', 'wrk_other');
        return inProcessParser.parse(input, signal);
      },
    };
    await processDocument(deps({ parser }), 'doc_a', WORKER);

    expect(work.document('doc_a')).toMatchObject({ status: 'processing', stage: 'parsing' });
    expect(work.documents.get('doc_a')?.leaseOwner).toBe('wrk_other');
    expect(index.rows.size).toBe(0);
    expect(work.runs.get('run_1')?.status).toBe('processing');
  });

  it('removes what it indexed when the document was deleted while it worked', async () => {
    await upload('doc_a', TEXT);
    const replace = index.replaceDocument.bind(index);
    index.replaceDocument = async (workspaceId, documentId, rows) => {
      await replace(workspaceId, documentId, rows);
      // DELETE /v1/documents/{id} arrives after the rows were written, before the worker finishes.
      work.documents.get(documentId)!.record.status = 'deleted';
    };
    await processDocument(deps(), 'doc_a', WORKER);

    expect(await index.countDocumentRows('ws_test', 'doc_a')).toBe(0);
    expect(work.document('doc_a').status).toBe('deleted');
  });

  it('gives a transient failure back to the job engine: lease released, error thrown, retried later', async () => {
    await upload('doc_a', TEXT);
    index.failWith = new Error('index unreachable');
    await expect(processDocument(deps(), 'doc_a', WORKER)).rejects.toThrow('index unreachable');

    expect(work.document('doc_a')).toMatchObject({ status: 'processing', attempts: 1 });
    // Nobody holds it now: the reconciler would enqueue it again.
    expect(await work.findOrphanedDocuments(10, null)).toEqual(['doc_a']);

    index.failWith = undefined;
    await processDocument(deps(), 'doc_a', WORKER);
    expect(work.document('doc_a')).toMatchObject({ status: 'ready', attempts: 2 });
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
    await processDocument(deps({ objects: down }), 'doc_a', WORKER);

    const doc = work.document('doc_a');
    expect(doc).toMatchObject({ status: 'failed', errorCode: 'storage_unavailable', attempts: MAX_ATTEMPTS });
    expect(doc.errorMessage).toContain('ECONNREFUSED');
    expect(work.runs.get('run_1')?.status).toBe('failed');
  });

  it('leaves a document of a paused run queued, and cancels one of a cancelled run', async () => {
    await upload('doc_a', TEXT, { runId: 'run_paused' });
    await upload('doc_b', TEXT, { runId: 'run_cancelled' });
    work.runs.get('run_paused')!.status = 'paused';
    work.runs.get('run_cancelled')!.status = 'cancelled';
    await processDocument(deps(), 'doc_a', WORKER);
    await processDocument(deps(), 'doc_b', WORKER);

    expect(work.document('doc_a')).toMatchObject({ status: 'queued', attempts: 0 });
    expect(work.document('doc_b')).toMatchObject({ status: 'cancelled', errorCode: 'cancelled' });
    expect(index.rows.size).toBe(0);
  });
});
