import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Issue 26: a sync that fails the same way on the same input is not retried forever, neither a
 * listing that takes its worker down every time (it was resumed after every restart and died
 * again) nor a scheduled source that keeps failing with the same code.
 */
describe('a sync that keeps failing', () => {
  let root: string;
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let workspaceId: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-retries-'));
    svc = await startTestService({
      env: { SOURCE_FOLDER_ROOTS: root, DOCUMENT_MAX_ATTEMPTS: '3' },
      worker: false,
    });
    api = client(svc.url, await svc.key());
    workspaceId = (await api.post('/v1/workspaces', { name: 'retries' })).body.id as string;
  });
  afterAll(async () => {
    await svc?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('is failed, not handed to a fourth worker, when each worker that took it up died listing it', async () => {
    await mkdir(path.join(root, 'deadly'));
    const sourceId = (
      await api.post(`/v1/workspaces/${workspaceId}/sources`, {
        type: 'folder',
        settings: { path: path.join(root, 'deadly') },
      })
    ).body.id as string;
    const sync = await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, {});
    // Three workers take the sync up in turn and die while listing: each lease lapses (0 s here).
    for (const worker of ['wrk_a', 'wrk_b', 'wrk_c'])
      expect(await svc.deps.syncs.claimSync(sourceId, worker, 0, 3), worker).toBeDefined();
    // The reconciler hands it to a fourth: that claim fails the sync instead of listing again.
    expect(await svc.deps.syncs.dueSyncs(10, () => 'run_unused')).toEqual([sourceId]);
    expect(await svc.deps.syncs.claimSync(sourceId, 'wrk_d', 30, 3)).toBeUndefined();
    const run = (await api.get(`/v1/runs/${sync.body.run.id}`)).body;
    expect(run).toMatchObject({ status: 'failed', error: { code: 'sync_failed' } });
    expect(run.error.message).toContain('started 3 times and never finished');
    const source = (await api.get(`/v1/workspaces/${workspaceId}/sources/${sourceId}`)).body;
    expect(source).toMatchObject({ syncRunId: null, consecutiveFailures: 1 });
    expect(await svc.deps.syncs.dueSyncs(10, () => 'run_unused')).toEqual([]);
  });

  it('backs a failing schedule off and stops it after five failures in a row; a change starts it again', async () => {
    await svc.startWorker();
    const missing = path.join(root, 'not-yet');
    const sourceId = (
      await api.post(`/v1/workspaces/${workspaceId}/sources`, {
        type: 'folder',
        settings: { path: missing },
        intervalMinutes: 60,
      })
    ).body.id as string;
    const waits: (number | null)[] = [];
    for (let n = 1; n <= 5; n++) {
      const started = await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, {});
      const run = await api.waitForRun(started.body.run.id);
      expect(run.error.code).toBe('source_missing');
      const s = (await api.get(`/v1/workspaces/${workspaceId}/sources/${sourceId}`)).body;
      expect(s.consecutiveFailures).toBe(n);
      waits.push(
        s.nextSyncAt && Math.round((Date.parse(s.nextSyncAt) - Date.parse(s.lastSync.finishedAt)) / 60_000),
      );
    }
    // 60 minutes, then twice as long after each failure with the same code; none after the fifth.
    expect(waits).toEqual([60, 120, 240, 480, null]);

    await mkdir(missing);
    await writeFile(path.join(missing, 'here.md'), '# Here\n\nThe folder exists now.\n');
    const changed = await api.patch(`/v1/workspaces/${workspaceId}/sources/${sourceId}`, {
      settings: { path: missing },
    });
    expect(changed.body.consecutiveFailures).toBe(0);
    expect(changed.body.nextSyncAt).not.toBeNull();
    const started = await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, {});
    expect((await api.waitForRun(started.body.run.id)).status).toBe('completed');
    const after = (await api.get(`/v1/workspaces/${workspaceId}/sources/${sourceId}`)).body;
    expect(after.consecutiveFailures).toBe(0);
    expect(Math.round((Date.parse(after.nextSyncAt) - Date.parse(after.lastSync.finishedAt)) / 60_000)).toBe(
      60,
    );
  });
});
