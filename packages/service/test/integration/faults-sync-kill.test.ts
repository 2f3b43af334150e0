import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { adminQuery, eventually, type FaultStack, startFaultStack, withDb } from '../support/fault-stack.js';
import { startS3Server, type TestS3 } from '../support/s3.js';

/**
 * Fault: `kill -9` of the worker that is listing a source. The sync's lease lapses, another worker's
 * reconciler hands the sync on, and the listing is applied once: every page a document, none twice.
 */
const dbName = `fs_${randomBytes(5).toString('hex')}`;
const adminUrl = () => inject('testPg').adminUrl;
const PAGES = 12;
let s3: TestS3;
let stack: FaultStack | undefined;
let site: http.Server;
let base: string;

beforeAll(async () => {
  // A slow site: each page takes a while, so the listing is long enough to kill its worker inside it.
  site = http.createServer((req, res) => {
    const n = /^\/p(\d+)$/.exec(req.url ?? '')?.[1];
    if (req.url === '/' || n !== undefined) {
      const links = Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ');
      const body = `<html><body><h1>Page ${n ?? 'home'}</h1><p>Pump ${n ?? 'home'} is serviced yearly.</p>${n === undefined ? links : ''}</body></html>`;
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(body), 400);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  s3 = await startS3Server();
  await adminQuery(adminUrl(), `CREATE DATABASE ${quoteIdent(dbName)}`);
  stack = await startFaultStack({
    databaseUrl: withDb(adminUrl(), dbName),
    objectsEnv: s3.env,
    workers: 2,
    env: { URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32' },
  });
});

afterAll(async () => {
  await stack?.stop();
  await s3?.close();
  await new Promise<void>((r) => site.close(() => r()));
  await adminQuery(adminUrl(), `DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
  await adminQuery(adminUrl(), `DROP DATABASE IF EXISTS ${quoteIdent(`${dbName}_workflow`)} WITH (FORCE)`);
});

describe('kill -9 of a worker in the middle of a sync', () => {
  it('another worker takes the sync over and applies it once', async () => {
    const s = stack!;
    const workspaceId = (await s.api.post('/v1/workspaces', { name: 'pumps' })).body.id as string;
    const source = await s.api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'website',
      settings: { startUrl: `${base}/`, maxDepth: 1 },
    });
    expect(source.status).toBe(201);
    const sync = await s.api.post(`/v1/workspaces/${workspaceId}/sources/${source.body.id}/sync`, {});
    const runId = sync.body.run.id as string;

    const holder = await eventually(
      'a worker to hold the sync',
      () =>
        s.db(async (c) => {
          const r = await c.query(
            'SELECT sync_owner FROM sources WHERE id = $1 AND sync_run_id IS NOT NULL',
            [source.body.id],
          );
          return (r.rows[0]?.sync_owner as string | null) ?? undefined;
        }),
      30_000,
      20,
    );
    const victim = s.workers.find((w) => w.id === holder)!;
    expect(victim, `sync owner ${holder} is one of our workers`).toBeDefined();
    victim.process.child.kill('SIGKILL');
    expect((await victim.process.exited).signal).toBe('SIGKILL');
    // Killed while listing: nothing of the sync is in the workspace yet.
    const atDeath = await s.db((c) =>
      c.query('SELECT count(*)::int AS n FROM documents WHERE workspace_id = $1', [workspaceId]),
    );
    expect(atDeath.rows[0].n).toBe(0);

    const done = await s.api.waitForRun(runId, 120_000);
    expect(done.status).toBe('completed');
    expect(done.counts).toMatchObject({ total: PAGES + 1, ready: PAGES + 1 });
    const rows = await s.db((c) =>
      c.query(
        `SELECT d.source_item, d.version, (SELECT sync_owner FROM sources WHERE id = d.source_id) AS owner,
                (SELECT count(*)::int FROM source_items i WHERE i.document_id = d.id) AS items
         FROM documents d WHERE d.workspace_id = $1`,
        [workspaceId],
      ),
    );
    const items = rows.rows.map((r) => r.source_item as string);
    expect(new Set(items).size).toBe(items.length);
    expect(items.sort()).toEqual(
      [`${base}/`, ...Array.from({ length: PAGES }, (_, i) => `${base}/p${i}`)].sort(),
    );
    expect(rows.rows.every((r) => r.version === 1 && r.items === 1 && r.owner === null)).toBe(true);
    const hits = await s.api.post('/v1/search', { workspaceId, q: 'pump 7 serviced' });
    expect(hits.body.results[0].citation.sourceUrl).toBe(`${base}/p7`);
  }, 180_000);
});
