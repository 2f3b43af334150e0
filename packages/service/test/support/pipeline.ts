import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { FsObjectStore } from '../../src/adapters/objects/fs.js';
import { artifactKeys } from '../../src/domain/artifacts.js';
import { silentLog } from '../../src/domain/log.js';
import type { DocumentParser, ObjectStore, UrlFetcher } from '../../src/domain/ports.js';
import { DependencyUnavailable, DocumentFailure } from '../../src/errors.js';
import { parseBytes } from '../../src/parsing/parse.js';
import type { PipelineDeps } from '../../src/processing/pipeline/index.js';
import { inProcessPreparer } from '../../src/processing/prepare.js';
import { MemorySearchIndex } from './fake-index.js';
import { MemoryJobQueue } from './fake-queue.js';
import { documentRecord, MemoryWorkStore } from './fakes.js';

/**
 * The bench the pipeline's unit tests (test/unit/pipeline/) run a batch on: in-memory stores, a
 * folder of objects, the parsers in this process. `usePipelineBench()` makes a fresh one per test;
 * the bindings below are that test's.
 */
export const WORKER = 'wrk_test';
export const MAX_ATTEMPTS = 3;
export const TEXT =
  '# Leave\n\nEmployees get twenty-five vacation days a year.\n\n# Travel\n\nBook trains ahead.\n';

export let tmp: string;
export let work: MemoryWorkStore;
export let index: MemorySearchIndex;
export let objects: ObjectStore;
export let jobs: MemoryJobQueue;

export function usePipelineBench(): void {
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
}

/** The parsers themselves, in this process (the sandbox around them has its own integration tests). */
export const inProcessParser: DocumentParser = {
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

export function deps(overrides: Partial<PipelineDeps> = {}): PipelineDeps {
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

/** A queued upload: its original stored, its document waiting. */
export async function upload(
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

/** Small uploads `doc_00`, `doc_01`, … (as many as `count`), each a short policy. */
export async function uploadSmall(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `doc_${String(i).padStart(2, '0')}`);
  for (const id of ids) await upload(id, `# ${id}\n\nThe ${id} policy covers parking.\n`);
  return ids;
}

/** Queued documents of the synced source src_1's items (id, key, listed size), their bytes not fetched yet. */
export function addSyncedItems(items: [id: string, key: string, sizeBytes: number][]): void {
  for (const [id, sourceItem, sizeBytes] of items)
    work.addDocument(
      documentRecord({ id, runId: 'run_1', sourceId: 'src_1', sourceItem, sha256: null, sizeBytes }),
    );
}

/** Queued documents fetched from https://example.com/{id}. */
export function addUrlDocuments(ids: string[]): void {
  for (const id of ids)
    work.addDocument(
      documentRecord({ id, runId: 'run_1', sourceUrl: `https://example.com/${id}`, sha256: null }),
    );
}

/** The documents of every start write the batch makes, in order. */
export function recordStarts(): string[][] {
  const starts: string[][] = [];
  const start = work.startDocuments.bind(work);
  work.startDocuments = async (documentIds, workerId, stage) => {
    starts.push(documentIds);
    return start(documentIds, workerId, stage);
  };
  return starts;
}

/** The in-process parser, recording what it was asked: each group's file names, each lone parse's. */
export function recordingParser(answer?: (filename: string) => DocumentFailure | 'not parsed' | undefined) {
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

/** Object storage that is down for reads. */
export function storageDown(): ObjectStore {
  return {
    ...objects,
    get: async () => {
      throw new DependencyUnavailable('objectStorage', 'object storage is unavailable: connect ECONNREFUSED');
    },
  };
}
