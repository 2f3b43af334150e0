import { mkdir, mkdtemp, rename, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

/** Documents of a workspace by their source item. */
async function bySourceItem(api: ReturnType<typeof client>, workspaceId: string) {
  const docs = (await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as {
    id: string;
    source: string | null;
    sourceItem: string | null;
    version: number;
    status: string;
  }[];
  return new Map(docs.map((d) => [d.sourceItem ?? d.id, d]));
}

describe('a folder source', () => {
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let root: string;
  let folder: string;
  let workspaceId: string;

  const sync = async (sourceId: string, body: unknown = {}) => {
    const r = await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, body);
    expect(r.status).toBe(202);
    return api.waitForRun(r.body.run.id);
  };

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-sources-'));
    folder = path.join(root, 'handbook');
    await mkdir(path.join(folder, 'teams'), { recursive: true });
    await mkdir(path.join(root, 'granted-to-b'));
    // The root to the default account; one folder inside it to the account "team-b" as well.
    svc = await startTestService({
      env: { SOURCE_FOLDER_ROOTS: `${root}, team-b=${path.join(root, 'granted-to-b')}` },
    });
    api = client(svc.url, await svc.key());
    workspaceId = (await api.post('/v1/workspaces', { name: 'folder sync' })).body.id;
  });
  afterAll(async () => {
    await svc?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('refuses a folder outside the allowed roots, and a path that leads out of one', async () => {
    for (const p of ['/etc', path.join(root, '..'), 'relative/path']) {
      const r = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
        type: 'folder',
        settings: { path: p },
      });
      expect(r.status, p).toBe(400);
      expect(r.body.error.code, p).toBe('source_path_forbidden');
    }
  });

  it("lets an account sync only the folders granted to it, not another account's", async () => {
    const b = client(svc.url, await svc.key(['ingest', 'search', 'artifacts'], 'team-b'));
    const bWorkspace = (await b.post('/v1/workspaces', { name: 'team b' })).body.id as string;
    await writeFile(path.join(folder, 'salaries.md'), '# Salaries\n\nThe default account keeps these.\n');
    const refused = await b.post(`/v1/workspaces/${bWorkspace}/sources`, {
      type: 'folder',
      settings: { path: folder },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('source_path_forbidden');
    const granted = await b.post(`/v1/workspaces/${bWorkspace}/sources`, {
      type: 'folder',
      settings: { path: path.join(root, 'granted-to-b') },
    });
    expect(granted.status).toBe(201);
    // Nor can it reach the root by changing its own source's path.
    const moved = await b.patch(`/v1/workspaces/${bWorkspace}/sources/${granted.body.id}`, {
      settings: { path: folder },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.code).toBe('source_path_forbidden');
    await rm(path.join(folder, 'salaries.md'));

    // Each account is told which types it may add, and for folders where.
    type Offer = { type: string; available: boolean; reason: string | null; roots: string[] };
    const offers = async (c: ReturnType<typeof client>) =>
      Object.fromEntries(((await c.get('/v1/source-types')).body.types as Offer[]).map((t) => [t.type, t]));
    expect((await offers(api)).folder).toMatchObject({ available: true, roots: [root] });
    expect((await offers(b)).folder).toMatchObject({
      available: true,
      roots: [path.join(root, 'granted-to-b')],
    });
    const nobody = await offers(client(svc.url, await svc.key(['artifacts'], 'team-c')));
    expect(nobody.folder).toMatchObject({ available: false, roots: [] });
    expect(nobody.folder?.reason).toContain('SOURCE_FOLDER_ROOTS');
    expect(nobody.s3).toMatchObject({ available: true });
    expect(nobody.website).toMatchObject({ available: true });
  });

  it('adds, changes, renames, deletes and skips unchanged files across syncs', async () => {
    await writeFile(
      path.join(folder, 'leave.md'),
      '# Leave\n\nStaff get thirty days of paid leave per year.\n',
    );
    await writeFile(path.join(folder, 'teams', 'it.md'), '# IT\n\nLaptops are collected at the IT desk.\n');
    await writeFile(path.join(folder, 'parking.md'), '# Parking\n\nThe car park opens at seven.\n');
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'folder',
      name: 'Handbook',
      settings: { path: folder },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'folder', hasCredentials: false, lastSync: null });
    const sourceId = created.body.id as string;
    // Adding a source starts its first sync: asking for one now answers that same run.
    expect(created.body.syncRunId).toEqual(expect.any(String));
    const asked = await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, {});
    expect(asked.body).toMatchObject({ created: false, run: { id: created.body.syncRunId } });

    const first = await api.waitForRun(created.body.syncRunId);
    expect(first.failures).toEqual([]);
    expect(first).toMatchObject({ status: 'completed', sourceId, error: null });
    expect(first.counts).toMatchObject({ total: 3, ready: 3 });
    let docs = await bySourceItem(api, workspaceId);
    expect([...docs.keys()].sort()).toEqual(['leave.md', 'parking.md', 'teams/it.md']);
    expect(docs.get('leave.md')).toMatchObject({ source: sourceId, version: 1, status: 'ready' });
    const leaveId = docs.get('leave.md')!.id;
    const itId = docs.get('teams/it.md')!.id;

    // Nothing changed: a run with no documents, nothing parsed again.
    const second = await sync(sourceId);
    expect(second.counts.total).toBe(0);
    expect(second.status).toBe('completed');
    // The run says what the sync found, so that "nothing new" can be told from a run whose documents
    // moved on to later syncs (issue 43): the first found three new files, the second nothing.
    expect(second.changes).toEqual({ added: 0, changed: 0, deleted: 0, unchanged: 3 });
    // The source says it was checked, by that sync, and that it found nothing new.
    const checked = (await api.get(`/v1/workspaces/${workspaceId}/sources/${sourceId}`)).body;
    expect(checked.lastSync).toMatchObject({ runId: second.id, changes: second.changes });
    expect(Date.parse(checked.lastCheckedAt)).toBeGreaterThanOrEqual(Date.parse(second.createdAt));
    expect((await api.get(`/v1/runs/${first.id}`)).body.changes).toEqual({
      added: 3,
      changed: 0,
      deleted: 0,
      unchanged: 0,
    });

    // A touched file with the same bytes is not processed again; a changed one is, under its id.
    const later = new Date(Date.now() + 5000);
    await utimes(path.join(folder, 'teams', 'it.md'), later, later);
    await writeFile(
      path.join(folder, 'leave.md'),
      '# Leave\n\nStaff get forty days of paid leave per year.\n',
    );
    await rename(path.join(folder, 'parking.md'), path.join(folder, 'car-park.md'));
    const third = await sync(sourceId);
    expect(third.status).toBe('completed');
    // leave.md changed, car-park.md is new; parking.md is gone: deleted by this sync, counted in its run.
    expect(third.counts).toMatchObject({ total: 3, ready: 2, deleted: 1 });
    // The touched file was listed as changed (its bytes were read to tell): counted as changed.
    expect(third.changes).toEqual({ added: 1, changed: 2, deleted: 1, unchanged: 0 });
    // The runs of the workspace say it too; an upload's run (elsewhere) has no such record.
    const listed = (await api.get(`/v1/workspaces/${workspaceId}/runs`)).body.runs as {
      id: string;
      changes: unknown;
    }[];
    expect(listed.find((r) => r.id === second.id)?.changes).toEqual(second.changes);
    const upload = await api.upload([{ name: 'memo.md', content: '# Memo\n\nA memo.\n' }]);
    expect((await api.get(`/v1/runs/${upload.body.run.id}`)).body.changes).toBeNull();
    const progress = (await api.get(`/v1/runs/${third.id}/progress`)).body;
    expect(
      progress.documents
        .map((d: { sourceItem: string; status: string }) => `${d.sourceItem}:${d.status}`)
        .sort(),
    ).toEqual(['car-park.md:ready', 'leave.md:ready', 'parking.md:deleted']);
    docs = await bySourceItem(api, workspaceId);
    expect([...docs.keys()].sort()).toEqual(['car-park.md', 'leave.md', 'teams/it.md']);
    expect(docs.get('leave.md')).toMatchObject({ id: leaveId, version: 2, status: 'ready' });
    expect(docs.get('teams/it.md')).toMatchObject({ id: itId, version: 1 });
    // The progress listing shows each document as GET /v1/documents/{id} does (issue 43: it listed
    // the document at version 2 with version, pageCount and chunkCount missing).
    const leave = (await api.get(`/v1/documents/${leaveId}`)).body;
    expect(leave).toMatchObject({ version: 2, chunkCount: expect.any(Number) });
    expect(leave.chunkCount).toBeGreaterThan(0);
    const inProgress = (await api.get(`/v1/runs/${third.id}/progress`)).body.documents;
    expect(inProgress.find((d: { id: string }) => d.id === leaveId)).toEqual(leave);

    const hit = await api.post('/v1/search', { workspaceId, q: 'how many days of paid leave' });
    expect(hit.body.results[0].text).toContain('forty days');
    expect(hit.body.results.some((h: { text: string }) => h.text.includes('thirty days'))).toBe(false);
    const gone = await api.post('/v1/search', { workspaceId, q: 'car park opens at seven' });
    expect(gone.body.results.map((h: { citation: { filename: string } }) => h.citation.filename)).toEqual([
      'car-park.md',
    ]);

    const source = (await api.get(`/v1/workspaces/${workspaceId}/sources/${sourceId}`)).body;
    expect(source.lastSync).toMatchObject({ runId: third.id, status: 'completed', error: null });
    expect(source.syncRunId).toBeNull();
  });

  it('refuses to delete more than the share allowed in one sync unless forced', async () => {
    const dir = path.join(root, 'limit');
    await mkdir(dir);
    for (const n of [1, 2, 3, 4])
      await writeFile(path.join(dir, `note-${n}.md`), `# Note ${n}\n\nNote number ${n}.\n`);
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'folder',
      settings: { path: dir },
      maxDeleteShare: 0.5,
    });
    const sourceId = created.body.id as string;
    expect((await sync(sourceId)).counts.ready).toBe(4);
    for (const n of [1, 2, 3]) await rm(path.join(dir, `note-${n}.md`));

    const refused = await sync(sourceId);
    expect(refused.status).toBe('failed');
    expect(refused.error.code).toBe('deletion_limit_exceeded');
    let docs = await bySourceItem(api, workspaceId);
    for (const n of [1, 2, 3, 4]) expect(docs.get(`note-${n}.md`)?.status).toBe('ready');
    const listed = (await api.get(`/v1/workspaces/${workspaceId}/sources`)).body.sources;
    expect(listed.find((s: { id: string }) => s.id === sourceId).lastSync).toMatchObject({
      status: 'failed',
      error: { code: 'deletion_limit_exceeded' },
    });

    const forced = await sync(sourceId, { force: true });
    expect(forced.status).toBe('completed');
    expect(forced.counts).toMatchObject({ total: 3, deleted: 3 });
    docs = await bySourceItem(api, workspaceId);
    expect(docs.has('note-1.md')).toBe(false);
    expect(docs.get('note-4.md')?.status).toBe('ready');
  });

  it('syncs only what its include and exclude patterns let through', async () => {
    const dir = path.join(root, 'patterns');
    await mkdir(path.join(dir, 'docs', 'drafts'), { recursive: true });
    await writeFile(path.join(dir, 'readme.md'), '# Readme\n\nThe readme of the patterns folder.\n');
    await writeFile(path.join(dir, 'docs', 'guide.md'), '# Guide\n\nThe guide explains the patterns.\n');
    await writeFile(path.join(dir, 'docs', 'logo.png'), 'not really a picture');
    await writeFile(path.join(dir, 'docs', 'drafts', 'wip.md'), '# WIP\n\nNot ready for anyone.\n');
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'folder',
      settings: { path: dir, include: ['docs/**'], exclude: ['*.png', 'docs/drafts/**'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.settings).toMatchObject({
      include: ['docs/**'],
      exclude: ['*.png', 'docs/drafts/**'],
    });
    const run = await api.waitForRun(created.body.syncRunId);
    expect(run.counts).toMatchObject({ total: 1, ready: 1 });
    const docs = await bySourceItem(api, workspaceId);
    expect(docs.get('docs/guide.md')).toMatchObject({ source: created.body.id, status: 'ready' });
    for (const gone of ['readme.md', 'docs/logo.png', 'docs/drafts/wip.md'])
      expect(docs.has(gone)).toBe(false);
    // A pattern that is no glob list is refused with the reason.
    const bad = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'folder',
      settings: { path: dir, exclude: '*.png' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('exclude');
  });

  it('skips what no worker can read, counted in the run with the reason, and fails no document for it', async () => {
    const dir = path.join(root, 'mixed');
    await mkdir(dir);
    await writeFile(path.join(dir, 'guide.md'), '# Guide\n\nThe mixed folder has one readable guide.\n');
    for (const n of [1, 2, 3])
      await writeFile(
        path.join(dir, `archive-${n}.md.gz`),
        gzipSync(Buffer.from(`# Old ${n}\n\n${'x'.repeat(500)}\n`)),
      );
    await writeFile(path.join(dir, 'blank.txt'), '');
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'folder',
      settings: { path: dir },
    });
    const run = await api.waitForRun(created.body.syncRunId);
    expect(run).toMatchObject({
      status: 'completed',
      counts: { total: 1, ready: 1, failed: 0 },
      failures: [],
    });
    expect(run.skipped).toEqual({
      total: 4,
      reasons: [
        {
          reason:
            'a gzip-compressed file: DocSlurp does not decompress files, upload or sync it uncompressed',
          count: 3,
          examples: ['archive-1.md.gz', 'archive-2.md.gz', 'archive-3.md.gz'],
        },
        { reason: 'the file is empty', count: 1, examples: ['blank.txt'] },
      ],
    });
    const docs = await bySourceItem(api, workspaceId);
    expect(docs.has('archive-1.md.gz')).toBe(false);
    expect(docs.get('guide.md')).toMatchObject({ status: 'ready' });
  });

  it('syncs on its schedule without being asked, and shows the next sync', async () => {
    const dir = path.join(root, 'scheduled');
    await mkdir(dir);
    await writeFile(path.join(dir, 'rota.md'), '# Rota\n\nThe night shift starts at ten.\n');
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'folder',
      settings: { path: dir },
      intervalMinutes: 60,
    });
    expect(created.body.intervalMinutes).toBe(60);
    // Due at once: a worker's reconciler (every RECONCILE_INTERVAL_SECONDS) starts the first sync.
    const synced = await waitFor('the scheduled sync', async () => {
      const s = (await api.get(`/v1/workspaces/${workspaceId}/sources/${created.body.id}`)).body;
      return s.lastSync?.status === 'completed' && s;
    });
    const next = Date.parse(synced.nextSyncAt) - Date.parse(synced.lastSync.finishedAt);
    expect(next).toBeGreaterThan(59 * 60_000);
    expect(next).toBeLessThan(61 * 60_000);
    const docs = await bySourceItem(api, workspaceId);
    expect(docs.get('rota.md')).toMatchObject({ source: created.body.id, status: 'ready' });
    // Without a schedule, nothing is due.
    const off = await api.patch(`/v1/workspaces/${workspaceId}/sources/${created.body.id}`, {
      intervalMinutes: null,
    });
    expect(off.body).toMatchObject({ intervalMinutes: null, nextSyncAt: null });
  });

  it('deletes the documents it brought with the source, and answers another account as unknown', async () => {
    const dir = path.join(root, 'gone');
    await mkdir(dir);
    await writeFile(path.join(dir, 'a.md'), '# A\n\nThe quartermaster keeps the spare keys.\n');
    const sourceId = (
      await api.post(`/v1/workspaces/${workspaceId}/sources`, { type: 'folder', settings: { path: dir } })
    ).body.id as string;
    await sync(sourceId);
    const other = client(svc.url, await svc.key(['ingest', 'search', 'artifacts'], 'other-account'));
    expect((await other.get(`/v1/workspaces/${workspaceId}/sources`)).status).toBe(404);
    expect((await other.get(`/v1/workspaces/${workspaceId}/sources/${sourceId}`)).status).toBe(404);
    expect((await other.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, {})).status).toBe(404);
    const readOnly = client(svc.url, await svc.key(['search']));
    expect((await readOnly.post(`/v1/workspaces/${workspaceId}/sources`, {})).status).toBe(403);

    expect((await api.delete(`/v1/workspaces/${workspaceId}/sources/${sourceId}`)).status).toBe(200);
    expect((await api.get(`/v1/workspaces/${workspaceId}/sources/${sourceId}`)).status).toBe(404);
    const docs = await bySourceItem(api, workspaceId);
    expect(docs.has('a.md')).toBe(false);
    const hit = await api.post('/v1/search', { workspaceId, q: 'who keeps the spare keys' });
    expect(hit.body.results.some((h: { text: string }) => h.text.includes('quartermaster'))).toBe(false);
  });
});

describe('a sync cancelled before a worker lists the source', () => {
  it('changes nothing, and the source can sync again', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-sources-cancel-'));
    await writeFile(path.join(root, 'memo.md'), '# Memo\n\nThe lift is serviced on Mondays.\n');
    // No worker yet: the sync waits in the queue with its run.
    const svc = await startTestService({ env: { SOURCE_FOLDER_ROOTS: root }, worker: false });
    try {
      const api = client(svc.url, await svc.key());
      const workspaceId = (await api.post('/v1/workspaces', { name: 'cancelled sync' })).body.id as string;
      const sourceId = (
        await api.post(`/v1/workspaces/${workspaceId}/sources`, { type: 'folder', settings: { path: root } })
      ).body.id as string;
      const first = await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, {});
      // Asking again while it waits answers the same run.
      const again = await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, {});
      expect(again.body).toMatchObject({ created: false, run: { id: first.body.run.id } });
      expect((await api.post(`/v1/runs/${first.body.run.id}/cancel`)).status).toBe(200);
      await svc.startWorker();
      await waitFor('the cancelled sync to end', async () => {
        const s = (await api.get(`/v1/workspaces/${workspaceId}/sources/${sourceId}`)).body;
        return s.syncRunId === null && s;
      });
      expect((await api.get(`/v1/runs/${first.body.run.id}`)).body).toMatchObject({
        status: 'cancelled',
        counts: { total: 0 },
      });
      expect((await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents).toEqual([]);

      const next = await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, {});
      expect(next.body.created).toBe(true);
      expect((await api.waitForRun(next.body.run.id)).counts).toMatchObject({ total: 1, ready: 1 });
    } finally {
      await svc.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
