import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { artifactKeys } from '../../src/domain/artifacts.js';
import { processDocuments } from '../../src/processing/pipeline.js';
import { syncSource } from '../../src/sources/sync.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Issue 27: a source's item is read once on its way to the index. Its bytes go from the source into
 * object storage and, in the same pass, to the parser; nothing is read back from storage, and each
 * source's row and credentials are read once per batch, not once per document.
 */
describe('the processing of synced items', () => {
  let root: string;
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let workspaceId: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-reads-'));
    // No worker: the test syncs and processes the documents itself, as one batch.
    svc = await startTestService({ env: { SOURCE_FOLDER_ROOTS: root }, worker: false });
    api = client(svc.url, await svc.key());
    workspaceId = (await api.post('/v1/workspaces', { name: 'reads' })).body.id as string;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await svc?.close();
    await rm(root, { recursive: true, force: true });
  });

  /** Each file's content, by its item key. */
  const contents = new Map<string, string>();

  /** A folder source with `files` notes, synced: the documents it queued. */
  async function syncedFolder(name: string, files: number): Promise<{ sourceId: string; ids: string[] }> {
    const dir = path.join(root, name);
    await mkdir(dir);
    for (let n = 1; n <= files; n++) {
      const key = `${name}-${n}.md`;
      contents.set(key, `# ${name} ${n}\n\nNote ${n} of the ${name} folder.\n`);
      await writeFile(path.join(dir, key), contents.get(key)!);
    }
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'folder',
      settings: { path: dir },
    });
    expect(created.status).toBe(201);
    const sourceId = created.body.id as string;
    const { worker } = svc.config;
    const outcome = await syncSource(
      { ...svc.deps, leaseSeconds: worker.leaseSeconds, maxAttempts: worker.maxAttempts },
      sourceId,
      'wrk_lister',
    );
    expect(outcome).toMatchObject({ status: 'applied', added: files });
    const docs = (await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as {
      id: string;
      source: string | null;
    }[];
    return { sourceId, ids: docs.filter((d) => d.source === sourceId).map((d) => d.id) };
  }

  it('reads each item once, straight into storage and the parser, and each source once per batch', async () => {
    const notes = await syncedFolder('notes', 5);
    const minutes = await syncedFolder('minutes', 3);
    const ids = [...notes.ids, ...minutes.ids];
    expect(ids).toHaveLength(8);

    const sourceReads = vi.spyOn(svc.deps.syncs, 'sourceById');
    const opens = vi.spyOn(svc.deps.connectors.folder, 'open');
    const gets = vi.spyOn(svc.deps.objects, 'get');
    const buffers = vi.spyOn(svc.deps.objects, 'getBuffer');
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
    const sourcesRead = sourceReads.mock.calls.map(([id]) => id);
    const opened = opens.mock.calls.map(([, key]) => key);
    const originals = new Set(ids.map((id) => artifactKeys.original(id)));
    const readBack = [...gets.mock.calls, ...buffers.mock.calls].filter(([key]) => originals.has(key));
    vi.restoreAllMocks();

    // One batch, two sources: each source's row read once, not once for each of its items.
    expect(sourcesRead.sort()).toEqual([minutes.sourceId, notes.sourceId].sort());
    // Each file opened once, and no original read back from storage for the parser.
    expect(opened.sort()).toEqual([...contents.keys()].sort());
    expect(readBack).toEqual([]);

    // What the parser read is what was stored: every document ready, its original and hash the file's.
    const account = await svc.deps.accounts.ensureAccount('default');
    for (const id of ids) {
      const doc = await svc.deps.documents.getDocument(account.id, id);
      expect(doc, id).toMatchObject({ status: 'ready', chunkCount: 1 });
      const file = contents.get(doc!.sourceItem!)!;
      expect((await svc.deps.objects.getBuffer(doc!.storageKey))?.toString()).toBe(file);
      expect(doc!.sha256).toBe(createHash('sha256').update(file).digest('hex'));
    }
  });
});
