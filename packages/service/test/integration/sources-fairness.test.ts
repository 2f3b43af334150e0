import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { capturingLog } from '../support/log.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

/**
 * Issue 44, finding 3: a worker ran one sync at a time for every account, so account A's folder
 * sync waited behind account B's website syncs, which wait on the network, until B's workspace was
 * deleted. Each site here answers nothing until the test lets it: whatever A gets done, it gets
 * done while B's syncs hang.
 */
interface HangingSite {
  base: string;
  /** Paths asked for, in order. */
  requests: string[];
  /** Answers every request held so far and any later one: nothing here. */
  release(): void;
  close(): Promise<void>;
}

async function hangingSite(): Promise<HangingSite> {
  const requests: string[] = [];
  const held: http.ServerResponse[] = [];
  let released = false;
  const answer = (res: http.ServerResponse) =>
    res.writeHead(404, { 'content-type': 'text/plain' }).end('gone');
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '/');
    if (released) answer(res);
    else held.push(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    release() {
      released = true;
      for (const res of held.splice(0)) answer(res);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('syncs of different accounts', () => {
  let svc: TestService;
  let root: string;
  const sites: HangingSite[] = [];
  const { log, lines } = capturingLog();
  let b: ReturnType<typeof client>;
  let bWorkspace: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docslurp-sync-fairness-'));
    await mkdir(path.join(root, 'a'));
    svc = await startTestService({
      log,
      env: {
        URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32',
        // B's sites hang until the test lets them; no time limit may end them first.
        URL_FETCH_TIMEOUT_SECONDS: '600',
        SOURCE_FOLDER_ROOTS: `team-a=${path.join(root, 'a')}`,
        // Two of an account's syncs at once: a second job for a sync in hand has only the source's
        // own guard to stop it.
        WORKER_SYNC_CONCURRENCY: '4',
      },
    });
    b = client(svc.url, await svc.key(['ingest', 'search', 'artifacts'], 'team-b'));
    bWorkspace = (await b.post('/v1/workspaces', { name: 'b sites' })).body.id as string;
  });
  afterAll(async () => {
    for (const site of sites) site.release();
    await svc?.close();
    for (const site of sites) await site.close();
    await rm(root, { recursive: true, force: true });
  });

  it("completes A's folder sync while B's website syncs wait on the network, however many B has", async () => {
    // As many of B's syncs as the worker has slots: without a cap per account they would take all.
    const bRuns: string[] = [];
    for (let i = 0; i < svc.config.worker.syncConcurrency; i++) {
      const site = await hangingSite();
      sites.push(site);
      const created = await b.post(`/v1/workspaces/${bWorkspace}/sources`, {
        type: 'website',
        settings: { startUrl: `${site.base}/docs/`, urlPrefix: `${site.base}/docs/` },
      });
      expect(created.status).toBe(201);
      bRuns.push(created.body.syncRunId as string);
    }
    await waitFor("B's syncs under way", () => sites.some((s) => s.requests.length > 0));

    const a = client(svc.url, await svc.key(['ingest', 'search', 'artifacts'], 'team-a'));
    await writeFile(path.join(root, 'a', 'handbook.md'), '# Handbook\n\nAccount A syncs its own folder.\n');
    const aWorkspace = (await a.post('/v1/workspaces', { name: 'a folder' })).body.id as string;
    const source = await a.post(`/v1/workspaces/${aWorkspace}/sources`, {
      type: 'folder',
      settings: { path: path.join(root, 'a') },
    });
    expect(source.status).toBe(201);
    const run = await a.waitForRun(source.body.syncRunId as string, 30_000);
    expect(run.status).toBe('completed');

    // Done while every one of B's syncs still waits on a site that has answered nothing.
    for (const runId of bRuns) expect((await b.get(`/v1/runs/${runId}`)).body.status).toBe('processing');
    // B held at most its share of the slots: half of them.
    expect(sites.filter((s) => s.requests.length > 0).length).toBeLessThanOrEqual(
      svc.config.worker.syncsPerAccount,
    );
  });

  it('never runs a second listing of a source whose sync this worker is running', async () => {
    const site = sites.find((s) => s.requests.length > 0)!;
    const sourceId = (
      (await b.get(`/v1/workspaces/${bWorkspace}/sources`)).body.sources as {
        id: string;
        settings: { startUrl: string };
      }[]
    ).find((s) => s.settings.startUrl.startsWith(site.base))!.id;
    const asked = site.requests.length;
    // A second request for the sync under way sends its job again; a free slot of the same worker
    // takes it, and must leave the source to the sync already listing it.
    const again = await b.post(`/v1/workspaces/${bWorkspace}/sources/${sourceId}/sync`, {});
    expect(again.body.created).toBe(false);
    await waitFor(
      'the second job put off, or a second listing',
      () =>
        site.requests.length > asked ||
        lines.some((l) => l.msg === 'sync put off' && l.sourceId === sourceId && l.reason === 'source'),
    );
    expect(site.requests).toHaveLength(asked);
  });
});
