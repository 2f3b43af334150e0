import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { artifactKeys } from '../../src/domain/artifacts.js';
import { processDocuments } from '../../src/processing/pipeline.js';
import { sourceCredentialsContext } from '../../src/sources/model.js';
import { syncSource } from '../../src/sources/sync.js';
import { client } from '../support/http.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Issue 27: a source's item is read once on its way to the index. Its bytes go from the source into
 * object storage and, in the same pass, to the parser; nothing is read back from storage, and each
 * source's row and credentials are read once per batch, not once per document.
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
      const doc = await svc.deps.documents.getDocument(account.id, id);
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
    const opens = vi.spyOn(svc.deps.connectors.folder, 'open');
    const gets = vi.spyOn(svc.deps.objects, 'get');
    const buffers = vi.spyOn(svc.deps.objects, 'getBuffer');
    await processAsOneBatch(ids);
    const sourcesRead = sourceReads.mock.calls.map(([id]) => id);
    const opened = opens.mock.calls.map(([, key]) => key);
    const originals = new Set(ids.map((id) => artifactKeys.original(id)));
    const readBack = [...gets.mock.calls, ...buffers.mock.calls].filter(([key]) => originals.has(key));
    vi.restoreAllMocks();

    // One batch, two sources: each source's row read once, not once for each of its items.
    expect(sourcesRead.sort()).toEqual([minutes.id, notes.id].sort());
    // Each file opened once, and no original read back from storage for the parser.
    expect(opened.sort()).toEqual([...contents.keys()].sort());
    expect(readBack).toEqual([]);
    await expectStoredAsListed(ids);
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
