import { createHash } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { type FileHandle, mkdir, mkdtemp, open, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { artifactKeys } from '../../src/domain/artifacts.js';
import { processDocuments } from '../../src/processing/pipeline/index.js';
import { directLister, type SourceConnector, sourceCredentialsContext } from '../../src/sources/model.js';
import { syncSource } from '../../src/sources/sync.js';
import { client } from '../support/http.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Issue 27: a source's item is read once on its way to the index. Its bytes go from the source into
 * object storage and, in the same pass, to the parser; nothing is read back from storage, and each
 * source's row and credentials are read once per batch, not once per document. A folder's listing
 * reads no file whole: the worker's one read tells a touched file from a changed one.
 */
describe('the processing of synced items', () => {
  let root: string;
  let s3: TestS3;
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let workspaceId: string;
  /** Each item's content, by its key. */
  const contents = new Map<string, string>();
  const note = (name: string, n: number) => `# ${name} ${n}\n\nNote ${n} of the ${name} collection.\n`;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-reads-'));
    s3 = await startS3Server({ bucket: 'reads' });
    // No worker: the test syncs and processes the documents itself, as one batch.
    svc = await startTestService({
      env: {
        SOURCE_FOLDER_ROOTS: root,
        URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32',
        ENCRYPTION_KEY: 'cd'.repeat(32),
      },
      worker: false,
    });
    api = client(svc.url, await svc.key());
    workspaceId = (await api.post('/v1/workspaces', { name: 'reads' })).body.id as string;
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await svc?.close();
    await s3?.close();
    await rm(root, { recursive: true, force: true });
  });

  /** Adds a source and syncs it here: the documents it queued. */
  async function synced(
    body: Record<string, unknown>,
    items: number,
  ): Promise<{ id: string; docs: string[] }> {
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, body);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const { worker } = svc.config;
    const outcome = await syncSource(
      { ...svc.deps, leaseSeconds: worker.leaseSeconds, maxAttempts: worker.maxAttempts },
      id,
      'wrk_lister',
    );
    expect(outcome).toMatchObject({ status: 'applied', added: items });
    const docs = (await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as {
      id: string;
      source: string | null;
    }[];
    return { id, docs: docs.filter((d) => d.source === id).map((d) => d.id) };
  }

  async function syncedFolder(name: string, files: number) {
    const dir = path.join(root, name);
    await mkdir(dir);
    for (let n = 1; n <= files; n++) {
      contents.set(`${name}-${n}.md`, note(name, n));
      await writeFile(path.join(dir, `${name}-${n}.md`), note(name, n));
    }
    return synced({ type: 'folder', settings: { path: dir } }, files);
  }

  /** Processes the documents as one batch, as a worker would. */
  async function processAsOneBatch(ids: string[]): Promise<void> {
    const { worker } = svc.config;
    await processDocuments(
      {
        ...svc.deps,
        leaseSeconds: worker.leaseSeconds,
        maxAttempts: worker.maxAttempts,
        batchMaxBytes: worker.batchMaxBytes,
      },
      ids,
      'wrk_reads',
    );
  }

  /** Every document ready, its stored original and its hash those of its item. */
  async function expectStoredAsListed(ids: string[]): Promise<void> {
    const account = await svc.deps.accounts.ensureAccount('default');
    for (const id of ids) {
      const doc = await svc.deps.documents.getDocument({ accountId: account.id }, id);
      expect(doc, id).toMatchObject({ status: 'ready', chunkCount: 1 });
      const item = contents.get(doc!.sourceItem!)!;
      expect((await svc.deps.objects.getBuffer(doc!.storageKey))?.toString()).toBe(item);
      expect(doc!.sha256).toBe(createHash('sha256').update(item).digest('hex'));
    }
  }

  it('reads each file once, straight into storage and the parser, and each source once per batch', async () => {
    const notes = await syncedFolder('notes', 5);
    const minutes = await syncedFolder('minutes', 3);
    const ids = [...notes.docs, ...minutes.docs];
    expect(ids).toHaveLength(8);

    const sourceReads = vi.spyOn(svc.deps.syncs, 'sourceById');
    // The batch reads each source's items through one reader (the folder opened once), closed at its end.
    const opened: string[] = [];
    let closed = 0;
    const folder = svc.deps.connectors.folder as Required<SourceConnector>;
    const reader = folder.reader.bind(folder);
    const readers = vi.spyOn(folder, 'reader').mockImplementation((access) => {
      const made = reader(access);
      return {
        open: (key, signal) => {
          opened.push(key);
          return made.open(key, signal);
        },
        close: () => {
          closed++;
          return made.close();
        },
      };
    });
    const gets = vi.spyOn(svc.deps.objects, 'get');
    const buffers = vi.spyOn(svc.deps.objects, 'getBuffer');
    await processAsOneBatch(ids);
    const sourcesRead = sourceReads.mock.calls.map(([id]) => id);
    const readersMade = readers.mock.calls.length;
    const originals = new Set(ids.map((id) => artifactKeys.original(id)));
    const readBack = [...gets.mock.calls, ...buffers.mock.calls].filter(([key]) => originals.has(key));
    vi.restoreAllMocks();

    // One batch, two sources: each source's row read once, not once for each of its items.
    expect(sourcesRead.sort()).toEqual([minutes.id, notes.id].sort());
    // Each file opened once, through one reader per source, and no original read back for the parser.
    expect(opened.sort()).toEqual([...contents.keys()].sort());
    expect([readersMade, closed]).toEqual([2, 2]);
    expect(readBack).toEqual([]);
    await expectStoredAsListed(ids);
  });

  /**
   * Counts what is read of each file under `dir` through any file handle (the listing's and the
   * worker's alike): whole reads (a stream, or one read from the start for more than a listing's
   * 16 KiB sample) and bytes, by the file's name.
   */
  async function countFileReads(dir: string) {
    const probe = await open(root, 'r');
    const handles = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const streams = new Map<string, number>();
    const bytes = new Map<string, number>();
    const nameOf = (fd: number) => {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir + path.sep) ? path.relative(dir, target) : undefined;
    };
    const read = handles.read;
    vi.spyOn(handles, 'read').mockImplementation(async function (this: FileHandle, ...args: unknown[]) {
      const name = nameOf(this.fd);
      const result = await (read as (...a: unknown[]) => Promise<{ bytesRead: number }>).apply(this, args);
      if (name) bytes.set(name, (bytes.get(name) ?? 0) + result.bytesRead);
      const [, , length, position] = args as [unknown, number, number, number];
      if (name && position === 0 && length > 16 * 1024) streams.set(name, (streams.get(name) ?? 0) + 1);
      return result as never;
    });
    const stream = handles.createReadStream;
    vi.spyOn(handles, 'createReadStream').mockImplementation(function (this: FileHandle, ...args) {
      const name = nameOf(this.fd);
      if (name) streams.set(name, (streams.get(name) ?? 0) + 1);
      return stream.apply(this, args);
    });
    return { streams, bytes };
  }

  it('reads a folder file once in all, listing included, and makes a version only of changed bytes', async () => {
    const dir = path.join(root, 'ledger');
    await mkdir(dir);
    // Larger than what a listing may sample, so that a whole read shows.
    const ledger = (n: number, edition: string) =>
      `# Ledger ${n}\n\n${`Entry of ledger ${n}, ${edition} edition. `.repeat(3000)}\n`;
    const names = ['ledger-1.md', 'ledger-2.md', 'ledger-3.md'];
    for (const [n, name] of names.entries()) await writeFile(path.join(dir, name), ledger(n, 'first'));
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'folder',
      settings: { path: dir },
    });
    const sourceId = created.body.id as string;
    const account = await svc.deps.accounts.ensureAccount('default');
    const documentOf = async (name: string) => {
      const docs = (await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as {
        id: string;
        source: string | null;
        sourceItem: string | null;
      }[];
      const id = docs.find((d) => d.source === sourceId && d.sourceItem === name)!.id;
      return (await svc.deps.documents.getDocument({ accountId: account.id }, id))!;
    };
    // Listed here, in this thread, so that its reads are counted with the worker's.
    const { worker } = svc.config;
    let requested = true;
    const sync = async () => {
      if (!requested)
        expect((await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, {})).status).toBe(
          202,
        );
      requested = false;
      return syncSource(
        {
          ...svc.deps,
          lister: directLister(svc.deps.connectors),
          leaseSeconds: worker.leaseSeconds,
          maxAttempts: worker.maxAttempts,
        },
        sourceId,
        'wrk_lister',
      );
    };
    const sizeOf = (name: string) => Buffer.byteLength(ledger(names.indexOf(name), 'first'));

    const first = await countFileReads(dir);
    expect(await sync()).toMatchObject({ status: 'applied', added: 3 });
    const firstDocs = await Promise.all(names.map(documentOf));
    await processAsOneBatch(firstDocs.map((d) => d.id));
    vi.restoreAllMocks();
    for (const name of names) {
      expect(first.streams.get(name), name).toBe(1);
      expect(first.bytes.get(name)!, name).toBeLessThan(sizeOf(name) * 1.5);
    }
    const before = new Map<string, Awaited<ReturnType<typeof documentOf>>>();
    for (const name of names) before.set(name, await documentOf(name));
    for (const doc of before.values()) expect(doc).toMatchObject({ status: 'ready', version: 1 });

    // ledger-1 touched (same bytes, a new time), ledger-2 rewritten, ledger-3 left alone.
    const later = new Date(Date.now() + 60_000);
    await utimes(path.join(dir, 'ledger-1.md'), later, later);
    await writeFile(path.join(dir, 'ledger-2.md'), ledger(1, 'second'));
    await utimes(path.join(dir, 'ledger-2.md'), later, later);
    const second = await countFileReads(dir);
    expect(await sync()).toMatchObject({ status: 'applied', added: 0, removed: 0 });
    const queued = (await Promise.all(names.map(documentOf))).filter((d) => d.status === 'queued');
    await processAsOneBatch(queued.map((d) => d.id));
    vi.restoreAllMocks();
    expect(Object.fromEntries(second.streams)).toEqual({ 'ledger-1.md': 1, 'ledger-2.md': 1 });
    expect(second.bytes.get('ledger-1.md')!).toBeLessThan(sizeOf('ledger-1.md') * 1.5);

    const touched = await documentOf('ledger-1.md');
    const touchedBefore = before.get('ledger-1.md')!;
    expect(touched).toMatchObject({
      status: 'ready',
      version: 1,
      sha256: touchedBefore.sha256,
      runId: touchedBefore.runId,
      chunkCount: touchedBefore.chunkCount,
    });
    const changed = await documentOf('ledger-2.md');
    expect(changed).toMatchObject({ status: 'ready', version: 2 });
    expect(changed.sha256).toBe(createHash('sha256').update(ledger(1, 'second')).digest('hex'));
    const text = await svc.deps.objects.getBuffer(artifactKeys.text(changed.id));
    expect(text?.toString()).toContain('second edition');
    expect(await documentOf('ledger-3.md')).toMatchObject({
      version: 1,
      runId: before.get('ledger-3.md')!.runId,
    });

    // The second sync's run holds what it changed, not the file found the same.
    const syncRun = (await svc.deps.syncs.sourceById(sourceId))!.lastRun!;
    const view = await api.get(`/v1/runs/${syncRun.id}`);
    expect(view.body).toMatchObject({ counts: { total: 1, ready: 1 } });

    // The touch is recorded: a third sync finds nothing to do and reads nothing whole.
    const third = await countFileReads(dir);
    expect(await sync()).toMatchObject({ status: 'applied', added: 0, changed: 0, unchanged: 3 });
    vi.restoreAllMocks();
    expect(third.streams.size).toBe(0);
    expect(third.bytes.size).toBe(0);
  });

  it("decrypts a bucket's credentials once for a batch of its objects", async () => {
    const bucket = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    try {
      for (let n = 1; n <= 4; n++) {
        contents.set(`drop/memo-${n}.md`, note('memo', n));
        await bucket.send(
          new PutObjectCommand({ Bucket: s3.bucket, Key: `drop/memo-${n}.md`, Body: note('memo', n) }),
        );
      }
    } finally {
      bucket.destroy();
    }
    const source = await synced(
      {
        type: 's3',
        settings: { endpoint: s3.endpoint, bucket: s3.bucket, prefix: 'drop/' },
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      },
      4,
    );
    const decrypts = vi.spyOn(svc.deps.secrets!, 'decrypt');
    const opens = vi.spyOn(svc.deps.connectors.s3, 'open');
    await processAsOneBatch(source.docs);
    const contexts = decrypts.mock.calls.map(([, context]) => context);
    const opened = opens.mock.calls.length;
    vi.restoreAllMocks();

    expect(contexts).toEqual([sourceCredentialsContext(source.id)]);
    expect(opened).toBe(4);
    await expectStoredAsListed(source.docs);
  });
});
