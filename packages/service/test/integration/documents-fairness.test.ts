import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

/**
 * Issue 44, finding 5: batches were taken in the order jobs were queued, so account A's one-line
 * upload waited 143 s behind account B's 10,000 queued web pages. Here B's pages each take a while
 * to answer; whoever comes next must be served after a batch or two of B's, not after all of them.
 */
const BACKLOG = 30;
const PAGE_DELAY_MS = 200;

let web: http.Server;
let base: string;

beforeAll(async () => {
  web = http.createServer((req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`Page ${req.url} of a slow site: its server takes its time with every answer.\n`);
    }, PAGE_DELAY_MS);
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => web.close(() => r()));
});

describe('documents of different accounts and workspaces', () => {
  let svc: TestService;
  let db: pg.Pool;
  let b: ReturnType<typeof client>;

  beforeAll(async () => {
    svc = await startTestService({ env: { URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32' } });
    db = new pg.Pool({ connectionString: svc.dbs.urls.service, max: 2 });
    b = client(svc.url, await svc.key(['ingest', 'search', 'artifacts'], 'team-b'));
  });
  afterAll(async () => {
    await db?.end();
    await svc?.close();
  });

  /** B's backlog of slow pages, under way: one of them done. */
  async function backlogOfB(name: string): Promise<{ runId: string; workspaceId: string }> {
    const urls = Array.from({ length: BACKLOG }, (_, i) => `${base}/${name}/${i}`);
    const r = await b.post('/v1/ingest/urls', { urls });
    expect(r.status).toBe(202);
    const runId = r.body.run.id as string;
    await waitFor("B's backlog under way", async () => {
      const n = await db.query("SELECT 1 FROM documents WHERE run_id = $1 AND status = 'ready' LIMIT 1", [
        runId,
      ]);
      return n.rowCount === 1;
    });
    return { runId, workspaceId: r.body.workspace.id as string };
  }

  /** How many of the backlog's documents had finished when `documentId` did, and how many were left. */
  async function finishedBefore(runId: string, documentId: string) {
    const r = await db.query<{ before: number; left: number }>(
      `SELECT count(*) FILTER (WHERE d.finished_at < a.finished_at)::int AS before,
              count(*) FILTER (WHERE d.finished_at IS NULL OR d.finished_at > a.finished_at)::int AS left
       FROM documents d, documents a WHERE d.run_id = $1 AND a.id = $2`,
      [runId, documentId],
    );
    return r.rows[0]!;
  }

  it("serves another account's one upload after a batch or two of a backlog queued before it", async () => {
    const backlog = await backlogOfB('b');
    const a = client(svc.url, await svc.key(['ingest', 'search', 'artifacts'], 'team-a'));
    const up = await a.upload([
      { name: 'note.txt', content: 'Account A uploads one line.', type: 'text/plain' },
    ]);
    expect(up.status).toBe(202);
    expect((await a.waitForRun(up.body.run.id, 60_000)).status).toBe('completed');
    const { before, left } = await finishedBefore(backlog.runId, up.body.documents[0].id);
    // In queue order A came after all of B's pages; in turns, after the batch in hand and one more.
    expect(before).toBeLessThanOrEqual(3);
    expect(left).toBeGreaterThanOrEqual(BACKLOG - 3);
    await b.waitForRun(backlog.runId, 120_000);
  });

  it("serves another workspace of the same account after a batch or two of one workspace's backlog", async () => {
    const backlog = await backlogOfB('w');
    const other = (await b.post('/v1/workspaces', { name: 'another' })).body.id as string;
    const up = await b.upload(
      [{ name: 'memo.txt', content: 'Another workspace of B.', type: 'text/plain' }],
      {
        workspaceId: other,
      },
    );
    expect(up.status).toBe(202);
    expect((await b.waitForRun(up.body.run.id, 60_000)).status).toBe('completed');
    const { before, left } = await finishedBefore(backlog.runId, up.body.documents[0].id);
    expect(before).toBeLessThanOrEqual(3);
    expect(left).toBeGreaterThanOrEqual(BACKLOG - 3);
    await b.waitForRun(backlog.runId, 120_000);
  });
});
