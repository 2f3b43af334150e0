import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { insertUser } from '../../src/access/people.js';
import { createApiKey } from '../../src/domain/keys.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';
import { startDocument } from '../support/start.js';

/**
 * Runs as people see them (issue 28): each says what started it and the workspace lists them; the
 * documents a cancel stopped (or that failed) can be processed again; and the pace right after a
 * resume is measured from the resume, not over a minute that was mostly the pause.
 */
let svc: TestService | undefined;
let root: string | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

const notes = (n: number, prefix = 'note') =>
  Array.from({ length: n }, (_, i) => ({
    name: `${prefix}-${i}.md`,
    content: `# ${prefix} ${i}\n\nThe tracking word of ${prefix} ${i} is ${prefix}word${i}x.\n`,
  }));

describe('what a run was', () => {
  it('names each run by what started it, and lists a workspace’s runs newest first', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-run-kinds-'));
    await writeFile(path.join(root, 'a.md'), '# A\n\nAlpha.\n');
    svc = await startTestService({ worker: false, env: { SOURCE_FOLDER_ROOTS: root } });
    const api = client(svc.url, await svc.key());
    const up = await api.upload(notes(2));
    expect(up.body.run.kind).toBe('upload');
    const ws = up.body.workspace.id as string;
    const urls = await api.post('/v1/ingest/urls', { urls: ['http://127.0.0.1:9/page'], workspaceId: ws });
    expect([urls.status, urls.body.run.kind]).toEqual([202, 'urls']);
    const source = await api.post(`/v1/workspaces/${ws}/sources`, {
      type: 'folder',
      settings: { path: root },
    });
    // Adding a source may start its first sync; asking again answers with the sync under way.
    const sync = await api.post(`/v1/workspaces/${ws}/sources/${source.body.id}/sync`, {});
    expect(sync.body.run).toMatchObject({ kind: 'sync', sourceId: source.body.id });
    const cancelled = await api.post(`/v1/runs/${up.body.run.id}/cancel`);
    expect(cancelled.body.kind).toBe('upload');
    const again = await api.post(`/v1/runs/${up.body.run.id}/reprocess`);
    expect([again.status, again.body.run.kind]).toEqual([202, 'reprocess']);

    const listed = await api.get(`/v1/workspaces/${ws}/runs`);
    expect(listed.status).toBe(200);
    const kinds = listed.body.runs.map((r: { kind: string }) => r.kind);
    expect(kinds[0]).toBe('reprocess');
    expect(kinds.at(-1)).toBe('upload');
    expect(new Set(kinds)).toEqual(new Set(['reprocess', 'sync', 'urls', 'upload']));
    const times = listed.body.runs.map((r: { createdAt: string }) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    // Every run of the list is the run as GET /v1/runs/{id} shows it.
    expect(listed.body.runs[0]).toMatchObject({ id: again.body.run.id, counts: { total: 2, queued: 2 } });
    expect((await api.get(`/v1/workspaces/${ws}/runs?limit=1`)).body.runs).toHaveLength(1);
    expect((await api.get(`/v1/workspaces/${ws}/runs?limit=0`)).status).toBe(400);

    const other = client(svc.url, await svc.key(['ingest'], 'other'));
    expect((await other.get(`/v1/workspaces/${ws}/runs`)).body.error.code).toBe('workspace_not_found');
    const reader = client(svc.url, await svc.key(['artifacts']));
    expect((await reader.get(`/v1/workspaces/${ws}/runs`)).status).toBe(403);
  });
});

describe('processing documents again', () => {
  it('puts cancelled documents into a new run, which processes them to the end', async () => {
    svc = await startTestService({ worker: false });
    const api = client(svc.url, await svc.key());
    const up = await api.upload(notes(3));
    const runId = up.body.run.id as string;
    const [d0, d1, d2] = up.body.documents.map((d: { id: string }) => d.id) as string[];
    await api.post(`/v1/runs/${runId}/cancel`);

    // One document on its own: a run of its own, the document queued in it, gone from the old run.
    const one = await api.post(`/v1/documents/${d0}/reprocess`);
    expect(one.status).toBe(202);
    expect(one.body.run).toMatchObject({ kind: 'reprocess', status: 'processing', counts: { total: 1 } });
    expect(one.body.documents).toEqual([
      expect.objectContaining({
        id: d0,
        runId: one.body.run.id,
        status: 'queued',
        stage: 'queued',
        error: null,
      }),
    ]);
    // The run it came from still counts it, as it left (cancelled), and names the run that took it.
    const before = (await api.get(`/v1/runs/${runId}`)).body;
    expect(before.counts).toMatchObject({ total: 3, cancelled: 3 });
    expect(before.reprocessedBy).toEqual([{ runId: one.body.run.id, documents: 1 }]);
    expect(
      (await api.get(`/v1/runs/${runId}/progress`)).body.documents.map((d: { id: string }) => d.id),
    ).toEqual([d1, d2]);
    // Queued now: not again.
    const twice = await api.post(`/v1/documents/${d0}/reprocess`);
    expect([twice.status, twice.body.error.code]).toEqual([409, 'not_reprocessable']);
    expect(twice.body.error.message).toBe(
      `Document "${d0}" is queued; only cancelled or failed documents are processed again.`,
    );

    // The rest of the cancelled run in one request.
    const rest = await api.post(`/v1/runs/${runId}/reprocess`, { statuses: ['cancelled'] });
    expect(rest.status).toBe(202);
    expect(rest.body.documents.map((d: { id: string }) => d.id)).toEqual([d1, d2]);
    const nothing = await api.post(`/v1/runs/${runId}/reprocess`);
    expect([nothing.status, nothing.body.error.message]).toEqual([
      409,
      `Run "${runId}" has no cancelled or failed documents to process again.`,
    ]);
    expect((await api.post(`/v1/runs/${runId}/reprocess`, { statuses: ['ready'] })).status).toBe(400);

    await svc.startWorker();
    for (const r of [one.body.run.id, rest.body.run.id])
      expect(await api.waitForRun(r)).toMatchObject({ status: 'completed', kind: 'reprocess' });
    // Processed to the end elsewhere, the cancelled run reads as it was, in the list of runs too.
    const original = (await api.get(`/v1/runs/${runId}`)).body;
    expect(original).toMatchObject({ status: 'cancelled', counts: { total: 3, cancelled: 3, ready: 0 } });
    expect(original.reprocessedBy).toEqual([
      { runId: one.body.run.id, documents: 1 },
      { runId: rest.body.run.id, documents: 2 },
    ]);
    const listed = (await api.get(`/v1/workspaces/${up.body.workspace.id}/runs`)).body.runs;
    expect(listed.find((r: { id: string }) => r.id === runId)).toEqual(original);
    expect(listed.find((r: { id: string }) => r.id === rest.body.run.id).reprocessedBy).toEqual([]);
    for (const id of [d0, d1, d2]) {
      const doc = (await api.get(`/v1/documents/${id}`)).body;
      expect([doc.status, doc.chunkCount > 0]).toEqual(['ready', true]);
      expect(await svc.deps.index.countDocumentRows(up.body.workspace.id, id!)).toBe(doc.chunkCount);
    }
    const ready = await api.post(`/v1/documents/${d1}/reprocess`);
    expect(ready.body.error.message).toMatch(/is ready; only cancelled or failed/);
    // Another account's document does not exist for this caller.
    const other = client(svc.url, await svc.key(['ingest'], 'other'));
    expect((await other.post(`/v1/documents/${d1}/reprocess`)).body.error.code).toBe('document_not_found');
  });

  it('processes a failed document again: a corrupt file fails the same way, with its attempts counted afresh', async () => {
    svc = await startTestService();
    const api = client(svc.url, await svc.key());
    const broken = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 7)]);
    const up = await api.upload([...notes(1), { name: 'broken.pdf', content: broken }]);
    const first = await api.waitForRun(up.body.run.id, 60_000);
    expect(first.counts).toMatchObject({ ready: 1, failed: 1 });
    const again = await api.post(`/v1/runs/${up.body.run.id}/reprocess`);
    expect(again.body.documents.map((d: { filename: string }) => d.filename)).toEqual(['broken.pdf']);
    const second = await api.waitForRun(again.body.run.id, 60_000);
    expect(second).toMatchObject({
      status: 'failed',
      failures: [{ filename: 'broken.pdf', code: 'corrupt_document' }],
    });
    // The first run still counts its failure; the failure is listed by the run it moved to.
    const firstNow = (await api.get(`/v1/runs/${up.body.run.id}`)).body;
    expect(firstNow).toMatchObject({
      counts: { total: 2, ready: 1, failed: 1 },
      failures: [],
      reprocessedBy: [{ runId: again.body.run.id, documents: 1 }],
    });
  });
});

describe('a run whose documents were processed again, as a member sees it', () => {
  it('is hidden when all its documents are hidden, counted over those visible otherwise', async () => {
    svc = await startTestService({ worker: false });
    const account = await svc.deps.accounts.ensureAccount('default');
    await svc.deps.groups.insertGroup({ id: 'grp_hr', accountId: account.id, name: 'HR' });
    const editor = await insertUser(svc.deps, account.id, { email: 'eddie@example.com', role: 'editor' });
    const key = await createApiKey(svc.deps.accounts, {
      accountId: account.id,
      scopes: ['ingest', 'artifacts'],
      name: 'eddie',
      userId: editor.id,
    });
    const admin = client(svc.url, await svc.key(['ingest', 'search', 'artifacts', 'admin']));
    const eddie = client(svc.url, key.secret);
    const open = await admin.upload(notes(2, 'open'));
    const ws = open.body.workspace.id as string;
    const hidden = await admin.upload(notes(2, 'salary'), {
      workspaceId: ws,
      access: JSON.stringify({ groups: ['HR'] }),
    });
    for (const up of [open, hidden]) {
      await admin.post(`/v1/runs/${up.body.run.id}/cancel`);
      expect((await admin.post(`/v1/runs/${up.body.run.id}/reprocess`)).status).toBe(202);
    }
    // Emptied of documents, the hidden upload's run still holds only what the editor may not see.
    expect((await eddie.get(`/v1/runs/${hidden.body.run.id}`)).status).toBe(404);
    expect((await admin.get(`/v1/runs/${hidden.body.run.id}`)).body.counts).toMatchObject({ cancelled: 2 });
    const seen = await eddie.get(`/v1/runs/${open.body.run.id}`);
    expect(seen.body).toMatchObject({
      counts: { total: 2, cancelled: 2 },
      reprocessedBy: [{ documents: 2 }],
    });
    const listed = (await eddie.get(`/v1/workspaces/${ws}/runs`)).body.runs.map((r: { id: string }) => r.id);
    expect(listed).toContain(open.body.run.id);
    expect(listed).not.toContain(hidden.body.run.id);
  });
});

describe('the pace of a run after Resume', () => {
  it('is measured from the resume: a long pause does not make the next seconds look slow', async () => {
    svc = await startTestService({ worker: false });
    const api = client(svc.url, await svc.key());
    const up = await api.upload(notes(4));
    const runUrl = `/v1/runs/${up.body.run.id}/progress`;
    const [d0, d1] = up.body.documents.map((d: { id: string }) => d.id) as string[];
    const store = svc.deps.work;
    const claimAndFinish = async (id: string) => {
      const claim = await store.claimDocuments([id], 'wrk_1', {
        leaseSeconds: 30,
        maxAttempts: 3,
        maxBytes: 1e6,
      });
      expect(claim.claimed.map((d) => d.id)).toEqual([id]);
      await startDocument(store, id, 'wrk_1', 'parsing');
      await store.finishDocuments('wrk_1', [{ documentId: id, result: { status: 'ready', chunkCount: 1 } }]);
    };
    await claimAndFinish(d0!);
    expect((await api.get(runUrl)).body.documentsPerSecond).toBeGreaterThan(0);

    await api.post(`/v1/runs/${up.body.run.id}/pause`);
    const pause = 5000;
    await new Promise((r) => setTimeout(r, pause));
    const resumedFrom = Date.now();
    expect((await api.post(`/v1/runs/${up.body.run.id}/resume`)).body.status).toBe('processing');
    // Nothing finished since the resume: no pace to go by yet (not the pace of before the pause).
    expect((await api.get(runUrl)).body).toMatchObject({ documentsPerSecond: null, etaSeconds: null });

    await claimAndFinish(d1!);
    const p = (await api.get(runUrl)).body;
    const sinceResume = (Date.now() - resumedFrom) / 1000;
    // One document since the resume, at least as fast as one in all the time since: measured over the
    // pause as well (its minute reached back to the first start), it would be under 2 / 3 s.
    expect(p.documentsPerSecond).toBeGreaterThanOrEqual(Math.floor((1 / sinceResume) * 100) / 100);
    expect(sinceResume).toBeLessThan(pause / 1000);
    // Two left at that pace.
    expect(p.etaSeconds).toBeLessThanOrEqual(Math.ceil(2 * sinceResume) + 1);
  });
});
