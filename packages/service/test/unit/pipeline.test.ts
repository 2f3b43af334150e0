// Over 400 lines: every behaviour of a batch (claims, failures, deletions, read-ahead, groups) runs on the
// same in-memory fakes set up here; split, each file would set them up again.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsObjectStore } from '../../src/adapters/objects/fs.js';
import { artifactKeys } from '../../src/domain/artifacts.js';
import { silentLog } from '../../src/domain/log.js';
import type { DocumentParser, ObjectStore, SourceItems, UrlFetcher } from '../../src/domain/ports.js';
import { DependencyUnavailable, DocumentFailure } from '../../src/errors.js';
import { parseBytes } from '../../src/parsing/parse.js';
import { type PipelineDeps, processDocuments } from '../../src/processing/pipeline/index.js';
import { inProcessPreparer } from '../../src/processing/prepare.js';
import { MemorySearchIndex } from '../support/fake-index.js';
import { MemoryJobQueue } from '../support/fake-queue.js';
import { documentRecord, MemoryWorkStore } from '../support/fakes.js';

const WORKER = 'wrk_test';
const MAX_ATTEMPTS = 3;
const TEXT = '# Leave\n\nEmployees get twenty-five vacation days a year.\n\n# Travel\n\nBook trains ahead.\n';

/** The parsers themselves, in this process (the sandbox around them has its own integration tests). */
const inProcessParser: DocumentParser = {
  parse: async (input) => parseBytes(await readFile(input.path), input.filename, input.declaredMediaType),
  parseGroup: async (documents) =>
    Promise.all(
      documents.map((d) =>
        parseBytes(d.bytes, d.filename, d.declaredMediaType).catch((err: unknown) => {
          if (err instanceof DocumentFailure) return err;
          throw err;
        }),
      ),
    ),
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
let jobs: MemoryJobQueue;

function deps(overrides: Partial<PipelineDeps> = {}): PipelineDeps {
  return {
    work,
    objects,
    index,
    parser: inProcessParser,
    fetcher: noFetcher,
    secrets: undefined,
    jobs,
    log: silentLog,
    tmpDir: tmp,
    leaseSeconds: 30,
    maxAttempts: MAX_ATTEMPTS,
    batchMaxBytes: 1024 * 1024,
    preparer: inProcessPreparer(),
    ...overrides,
  };
}

async function upload(
  id: string,
  body: string,
  fields: { attempts?: number; runId?: string; workspaceId?: string } = {},
) {
  await objects.put(artifactKeys.original(id), body);
  work.addDocument(
    documentRecord({
      id,
      runId: fields.runId ?? 'run_1',
      workspaceId: fields.workspaceId ?? 'ws_test',
      attempts: fields.attempts ?? 0,
      sizeBytes: Buffer.byteLength(body),
    }),
  );
}

beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pipeline-'));
  work = new MemoryWorkStore();
  index = new MemorySearchIndex();
  objects = new FsObjectStore(path.join(tmp, 'objects'));
  jobs = new MemoryJobQueue();
});

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('processing a batch of documents', () => {
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

  it('wakes the maintenance at once only at the end of a burst: the batch done and no other queued', async () => {
    await upload('doc_a', TEXT, { runId: 'run_1' });
    await upload('doc_b', TEXT, { runId: 'run_2' });
    jobs.queued.processDocument = 3;
    await processDocuments(deps(), ['doc_a'], WORKER);
    jobs.queued.processDocument = 0;
    await processDocuments(deps(), ['doc_b'], WORKER);
    expect(jobs.sent('maintainWorkspace').map((j) => j.options.wake)).toEqual([false, true]);
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

  it('reads the next fetched document while the current one is parsed, each once', async () => {
    const ids = ['doc_a', 'doc_b', 'doc_c'];
    const fetched: string[] = [];
    const fetchedDuringParse = new Map<string, string[]>();
    const fetcher: UrlFetcher = {
      fetch: async (url) => {
        fetched.push(url);
        return {
          body: Readable.from([Buffer.from(TEXT)]),
          contentType: 'text/markdown',
          finalUrl: url,
          filename: `${url.split('/').pop()}.md`,
        };
      },
    };
    const parser: DocumentParser = {
      parse: async (input, signal) => {
        // Time for a read-ahead to begin; without one nothing else is fetched while this parses.
        await new Promise((r) => setTimeout(r, 50));
        fetchedDuringParse.set(path.basename(input.path), [...fetched]);
        return inProcessParser.parse(input, signal);
      },
    };
    for (const id of ids) {
      work.addDocument(
        documentRecord({ id, runId: 'run_1', sourceUrl: `https://example.com/${id}`, sha256: null }),
      );
    }
    await processDocuments(deps({ fetcher, parser }), ids, WORKER);

    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 1 });
    expect(fetched).toEqual(ids.map((id) => `https://example.com/${id}`));
    expect(fetchedDuringParse.get('doc_a')).toContain('https://example.com/doc_b');
    expect(fetchedDuringParse.get('doc_b')).toContain('https://example.com/doc_c');
    for (const id of ids) expect(await objects.get(artifactKeys.original(id))).toBeDefined();
  });

  it('records nothing of bytes read ahead for a document the batch did not start, and stops reading them', async () => {
    const aborted: string[] = [];
    const fetcher: UrlFetcher = {
      fetch: async (url, signal) => {
        signal?.addEventListener('abort', () => aborted.push(url));
        // The next document's bytes never end: only an abort ends the read.
        const body = url.endsWith('doc_b') ? new Readable({ read() {} }) : Readable.from([Buffer.from(TEXT)]);
        signal?.addEventListener('abort', () => body.destroy(new Error('aborted')));
        return { body, contentType: 'text/markdown', finalUrl: url, filename: 'page.md' };
      },
    };
    const parser: DocumentParser = {
      parse: async () => {
        throw new DependencyUnavailable(
          'objectStorage',
          'object storage is unavailable: connect ECONNREFUSED',
        );
      },
    };
    for (const id of ['doc_a', 'doc_b']) {
      work.addDocument(
        documentRecord({ id, runId: 'run_1', sourceUrl: `https://example.com/${id}`, sha256: null }),
      );
    }
    await expect(processDocuments(deps({ fetcher, parser }), ['doc_a', 'doc_b'], WORKER)).rejects.toThrow(
      'ECONNREFUSED',
    );
    expect(aborted).toEqual(['https://example.com/doc_b']);
    expect(work.document('doc_b')).toMatchObject({ status: 'queued', attempts: 0, sha256: null });
  });

  it('leaves a document of a paused run queued, and cancels one of a cancelled run', async () => {
    await upload('doc_a', TEXT, { runId: 'run_paused' });
    await upload('doc_b', TEXT, { runId: 'run_cancelled' });
    work.runs.get('run_paused')!.status = 'paused';
    work.runs.get('run_cancelled')!.status = 'cancelled';
    await processDocuments(deps(), ['doc_a', 'doc_b'], WORKER);

    expect(work.document('doc_a')).toMatchObject({ status: 'queued', attempts: 0 });
    expect(work.document('doc_b')).toMatchObject({ status: 'cancelled', errorCode: 'cancelled' });
    expect(index.rows.size).toBe(0);
  });
});

describe('parsing small uploads in groups', () => {
  /** Queued documents of the synced source src_1's items (id, key, listed size), their bytes not fetched yet. */
  function addSyncedItems(items: [id: string, key: string, sizeBytes: number][]): void {
    for (const [id, sourceItem, sizeBytes] of items)
      work.addDocument(
        documentRecord({ id, runId: 'run_1', sourceId: 'src_1', sourceItem, sha256: null, sizeBytes }),
      );
  }

  /** The documents of every start write the batch makes, in order. */
  function recordStarts(): string[][] {
    const starts: string[][] = [];
    const start = work.startDocuments.bind(work);
    work.startDocuments = async (documentIds, workerId, stage) => {
      starts.push(documentIds);
      return start(documentIds, workerId, stage);
    };
    return starts;
  }

  /** The in-process parser, recording what it was asked: each group's file names, each lone parse's. */
  function recordingParser(answer?: (filename: string) => DocumentFailure | 'not parsed' | undefined) {
    const groups: string[][] = [];
    const alone: string[] = [];
    const parser: DocumentParser = {
      parse: async (input, signal) => {
        alone.push(input.filename);
        return inProcessParser.parse(input, signal);
      },
      parseGroup: async (documents, group, signal) => {
        groups.push(documents.map((d) => d.filename));
        const parsed = await inProcessParser.parseGroup!(documents, group, signal);
        return parsed.map((p, i) => {
          const told = answer?.(documents[i]!.filename);
          return told === 'not parsed' ? undefined : (told ?? p);
        });
      },
    };
    return { parser, groups, alone };
  }

  it('starts the small uploads of a batch in one write and parses them in one request, each with its own outcome', async () => {
    const ids = ['doc_a', 'doc_b', 'doc_c'];
    for (const id of ids) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`);
    await upload('doc_big', `# Big\n\n${'A long policy on parking. '.repeat(8000)}\n`);
    const { parser, groups, alone } = recordingParser();
    const starts = recordStarts();
    await processDocuments(deps({ parser }), [...ids, 'doc_big'], WORKER);

    // One write starts the group, one request parses it.
    expect(starts).toEqual([ids, ['doc_big']]);
    expect(groups).toEqual([['doc_a.md', 'doc_b.md', 'doc_c.md']]);
    expect(alone).toEqual(['doc_big.md']);
    for (const id of [...ids, 'doc_big']) {
      expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 1 });
    }
    expect((await objects.getBuffer(artifactKeys.text('doc_b')))?.toString()).toContain('doc_b policy');
  });

  it('takes small documents a dead worker had started in one batch, but starts and parses each alone', async () => {
    const ids = ['doc_a', 'doc_b', 'doc_c'];
    for (const id of ids) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`, { attempts: 1 });
    const { parser, groups, alone } = recordingParser();
    const starts = recordStarts();
    const claims: string[][] = [];
    const claim = work.claimDocuments.bind(work);
    work.claimDocuments = async (documentIds, workerId, options) => {
      const c = await claim(documentIds, workerId, options);
      claims.push(c.claimed.map((d) => d.id));
      return c;
    };
    await processDocuments(deps({ parser }), ids, WORKER);

    expect(claims).toEqual([ids]);
    // A fault that ends the worker again raises the attempts of the document it met only.
    expect(starts).toEqual(ids.map((id) => [id]));
    expect(groups).toEqual([]);
    expect(alone).toEqual(['doc_a.md', 'doc_b.md', 'doc_c.md']);
    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 2 });
  });

  it('starts and parses the next group while the documents of the one before are chunked', async () => {
    const ids = Array.from({ length: 70 }, (_, i) => `doc_${String(i).padStart(2, '0')}`);
    for (const id of ids) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`);
    const { parser, groups } = recordingParser();
    let detected = 0;
    const detectedAtStart: number[] = [];
    const start = work.startDocuments.bind(work);
    work.startDocuments = async (documentIds, workerId, stage) => {
      detectedAtStart.push(detected);
      return start(documentIds, workerId, stage);
    };
    const languages = {
      detect: async () => {
        detected++;
        return { language: 'en', reliable: true };
      },
    };
    await processDocuments(deps({ parser, preparer: inProcessPreparer(languages) }), ids, WORKER);

    // The first group is small, so that its documents are searchable soon.
    expect(groups.map((g) => g.length)).toEqual([8, 62]);
    // The second group was started before the first group's first document was read for its language.
    expect(detectedAtStart).toEqual([0, 0]);
    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 1 });
  });

  it("reads the next group's originals while the group before it is parsed", async () => {
    const ids = Array.from({ length: 70 }, (_, i) => `doc_${String(i).padStart(2, '0')}`);
    for (const id of ids) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`);
    // The first group is 8 documents (doc_00 to doc_07): doc_08 begins the second.
    let secondRead!: () => void;
    const secondReadStarted = new Promise<void>((resolve) => {
      secondRead = resolve;
    });
    const getBuffer = objects.getBuffer.bind(objects);
    objects.getBuffer = async (key) => {
      if (key === artifactKeys.original('doc_08')) secondRead();
      return getBuffer(key);
    };
    const readDuringFirstParse: boolean[] = [];
    const parser: DocumentParser = {
      parse: (input, signal) => inProcessParser.parse(input, signal),
      parseGroup: async (documents, group, signal) => {
        if (readDuringFirstParse.length === 0) {
          // Bounded, so that code reading the next group only after this parse fails instead of hanging.
          const bound = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000));
          readDuringFirstParse.push(await Promise.race([secondReadStarted.then(() => true), bound]));
        }
        return inProcessParser.parseGroup!(documents, group, signal);
      },
    };
    await processDocuments(deps({ parser }), ids, WORKER);

    expect(readDuringFirstParse).toEqual([true]);
    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 1 });
  });

  it('takes the languages a group parse told, and asks for them only when the workspace leaves its language to detection', async () => {
    const ids = ['doc_a', 'doc_b', 'doc_c'];
    const asked: (boolean | undefined)[] = [];
    const parser: DocumentParser = {
      ...inProcessParser,
      parseGroup: async (documents, group, signal, options) => {
        asked.push(options?.detectLanguage);
        const parsed = await inProcessParser.parseGroup!(documents, group, signal);
        // Told German, where the worker's own detector would say English: the told one must win.
        return parsed.map((p) =>
          options?.detectLanguage && !(p instanceof DocumentFailure) && p
            ? { ...p, language: { language: 'de', reliable: true } }
            : p,
        );
      },
    };
    let detected = 0;
    const languages = {
      detect: async () => {
        detected++;
        return { language: 'en', reliable: true };
      },
    };
    for (const id of ids) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`);
    await processDocuments(deps({ parser, preparer: inProcessPreparer(languages) }), ids, WORKER);
    expect(asked).toEqual([true]);
    expect(detected).toBe(0);
    for (const id of ids) expect(work.document(id)).toMatchObject({ status: 'ready', language: 'de' });

    // A workspace that sets its language: nothing to tell.
    const set = ['doc_d', 'doc_e'];
    for (const id of set) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`);
    const claim = work.claimDocuments.bind(work);
    work.claimDocuments = async (documentIds, workerId, options) => ({
      ...(await claim(documentIds, workerId, options)),
      workspaceLanguage: 'fr',
    });
    await processDocuments(deps({ parser, preparer: inProcessPreparer(languages) }), set, WORKER);
    expect(asked).toEqual([true, false]);
    for (const id of set) expect(work.document(id)).toMatchObject({ status: 'ready', language: 'fr' });
  });

  it("fetches a group of a synced source's items together, parses them in one request and records them in one write", async () => {
    const items: Record<string, string> = {
      'a.md': '# A\n\nThe a policy covers parking.\n',
      'b.md': '# B\n\nThe b policy covers travel.\n',
      'gone.md': '',
      'c.md': '# C\n\nThe c policy covers meals.\n',
    };
    const opened: string[] = [];
    const sourceItems: SourceItems = {
      forBatch: () => ({
        close: async () => {},
        open: async (_sourceId, key) => {
          opened.push(key);
          if (key === 'gone.md')
            throw new DocumentFailure('fetch_failed', 'The item is gone from its folder.');
          return {
            body: Readable.from([Buffer.from(items[key]!)]),
            contentType: 'text/markdown',
            finalUrl: key,
            filename: key,
          };
        },
      }),
    };
    const ids = ['doc_a', 'doc_b', 'doc_gone', 'doc_c'];
    addSyncedItems(Object.keys(items).map((key, i) => [ids[i]!, key, Buffer.byteLength(items[key]!)]));
    const { parser, groups, alone } = recordingParser();
    const writes: string[][] = [];
    const record = work.recordFetched.bind(work);
    work.recordFetched = (workerId, fetched) => {
      writes.push(fetched.map((f) => f.documentId));
      return record(workerId, fetched);
    };
    await processDocuments(deps({ parser, sourceItems }), ids, WORKER);

    expect(groups).toEqual([['a.md', 'b.md', 'c.md']]);
    expect(writes).toEqual([['doc_a', 'doc_b', 'doc_c']]);
    expect(alone).toEqual([]);
    expect(opened.sort()).toEqual(['a.md', 'b.md', 'c.md', 'gone.md']);
    for (const id of ['doc_a', 'doc_b', 'doc_c']) {
      expect(work.document(id)).toMatchObject({ status: 'ready', attempts: 1, mediaType: 'text/markdown' });
      expect(work.document(id).sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(await objects.getBuffer(artifactKeys.original(id))).toBeDefined();
    }
    expect(work.document('doc_gone')).toMatchObject({ status: 'failed', errorCode: 'fetch_failed' });
    expect((await objects.getBuffer(artifactKeys.text('doc_c')))?.toString()).toContain('meals');
  });

  it('keeps a small synced item in memory for its group, and streams one that grew past a small size', async () => {
    const grown = Buffer.from(`# Grown\n\n${'The grown policy covers parking. '.repeat(6000)}\n`);
    const bodies: Record<string, () => Readable> = {
      'a.md': () => Readable.from([Buffer.from('# A\n\nThe a policy covers travel.\n')]),
      'b.md': () => Readable.from([Buffer.from('# B\n\nThe b policy '), Buffer.from('covers meals.\n')]),
      // Listed small, larger when read (about 200 KB), in pieces of 4 KiB.
      'grown.md': () =>
        Readable.from(
          Array.from({ length: Math.ceil(grown.length / 4096) }, (_, i) =>
            grown.subarray(i * 4096, (i + 1) * 4096),
          ),
        ),
      'broken.md': () =>
        Readable.from(
          (async function* () {
            yield Buffer.from('# Broken\n\n');
            throw new DocumentFailure('fetch_failed', 'The item could not be read to its end.');
          })(),
        ),
    };
    const sourceItems: SourceItems = {
      forBatch: () => ({
        close: async () => {},
        open: async (_sourceId, key) => ({
          body: bodies[key]!(),
          contentType: 'text/markdown',
          finalUrl: key,
          filename: key,
        }),
      }),
    };
    const ids = ['doc_a', 'doc_grown', 'doc_b', 'doc_broken'];
    addSyncedItems(['a.md', 'grown.md', 'b.md', 'broken.md'].map((key, i) => [ids[i]!, key, 100]));
    const { parser, groups, alone } = recordingParser();
    await processDocuments(deps({ parser, sourceItems }), ids, WORKER);

    // The grown item is not sent with the group: it is parsed alone, from its whole stored original.
    expect(groups).toEqual([['a.md', 'b.md']]);
    expect(alone).toEqual(['grown.md']);
    expect((await objects.getBuffer(artifactKeys.original('doc_grown')))?.equals(grown)).toBe(true);
    expect(work.document('doc_grown')).toMatchObject({ status: 'ready', sizeBytes: grown.length });
    expect(work.document('doc_grown').sha256).toBe(createHash('sha256').update(grown).digest('hex'));
    for (const id of ['doc_a', 'doc_b']) expect(work.document(id)).toMatchObject({ status: 'ready' });
    expect((await objects.getBuffer(artifactKeys.text('doc_b')))?.toString()).toContain('covers meals');
    expect(work.document('doc_broken')).toMatchObject({ status: 'failed', errorCode: 'fetch_failed' });
    expect(await objects.getBuffer(artifactKeys.original('doc_broken'))).toBeUndefined();

    // A small item with no group to join is parsed alone, from its stored original.
    bodies['solo.md'] = () => Readable.from([Buffer.from('# Solo\n\nThe solo policy covers gifts.\n')]);
    addSyncedItems([['doc_solo', 'solo.md', 40]]);
    await processDocuments(deps({ parser, sourceItems }), ['doc_solo'], WORKER);
    expect(alone).toEqual(['grown.md', 'solo.md']);
    expect(work.document('doc_solo')).toMatchObject({ status: 'ready', chunkCount: 1 });
    expect((await objects.getBuffer(artifactKeys.text('doc_solo')))?.toString()).toContain('covers gifts');
  });

  it('fails the one document the group failed, and parses alone those the group did not parse', async () => {
    for (const id of ['doc_a', 'doc_b', 'doc_c']) await upload(id, TEXT);
    const { parser, groups, alone } = recordingParser((filename) =>
      filename === 'doc_b.md'
        ? new DocumentFailure('corrupt_document', 'The file could not be parsed: bad bytes')
        : filename === 'doc_c.md'
          ? 'not parsed'
          : undefined,
    );
    await processDocuments(deps({ parser }), ['doc_a', 'doc_b', 'doc_c'], WORKER);

    expect(groups).toHaveLength(1);
    expect(alone).toEqual(['doc_c.md']);
    expect(work.document('doc_a').status).toBe('ready');
    expect(work.document('doc_b')).toMatchObject({ status: 'failed', errorCode: 'corrupt_document' });
    expect(work.document('doc_c').status).toBe('ready');
  });

  it('parses alone every document of a group the parser broke on', async () => {
    for (const id of ['doc_a', 'doc_b']) await upload(id, TEXT);
    const alone: string[] = [];
    const parser: DocumentParser = {
      parse: async (input, signal) => {
        alone.push(input.filename);
        return inProcessParser.parse(input, signal);
      },
      parseGroup: async () => {
        throw new Error('the parser process could not start');
      },
    };
    await processDocuments(deps({ parser }), ['doc_a', 'doc_b'], WORKER);

    expect(alone).toEqual(['doc_a.md', 'doc_b.md']);
    for (const id of ['doc_a', 'doc_b']) expect(work.document(id).status).toBe('ready');
  });
});
