import * as lancedb from '@lancedb/lancedb';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';
import { startDocument } from '../support/start.js';

/**
 * Documents in batches (issue 17): a worker takes the waiting documents of a workspace together,
 * writes them to the index in few commits, and keeps leases, attempts and failures per document.
 */
let svc: TestService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

async function tableVersions(svc: TestService, workspaceId: string): Promise<number> {
  const db = await lancedb.connect(svc.config.index.uri);
  const table = await db.openTable(workspaceId);
  try {
    return await table.version();
  } finally {
    table.close();
    db.close();
  }
}

const notes = (n: number, prefix = 'note') =>
  Array.from({ length: n }, (_, i) => ({
    name: `${prefix}-${i}.md`,
    content: `# ${prefix} ${i}\n\nThe tracking word of ${prefix} ${i} is ${prefix}word${i}x. Filed by team ${i % 3}.\n`,
  }));

describe('a worker takes waiting documents in batches', () => {
  it('writes a batch to the index in few commits and finishes each document on its own', async () => {
    svc = await startTestService({ worker: false });
    const api = client(svc.url, await svc.key());
    const up = await api.upload([
      ...notes(30),
      { name: 'broken.pdf', content: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 7)]) },
      { name: 'empty.txt', content: ' \n' },
    ]);
    expect(up.status).toBe(202);
    await svc.startWorker();
    const done = await api.waitForRun(up.body.run.id, 60_000);
    expect(done.counts).toMatchObject({ total: 32, ready: 30, failed: 2 });
    const codes = Object.fromEntries(
      done.failures.map((f: { filename: string; code: string }) => [f.filename, f.code]),
    );
    expect(codes).toEqual({ 'broken.pdf': 'corrupt_document', 'empty.txt': 'empty_document' });

    // One document at a time made a table version per document (32 and more); a batch makes one per
    // group of parsed documents, besides the table's creation, its full-text index and the maintenance
    // that settles the run. How many groups depends on how parsing interleaves with the commits (two
    // or three on an idle machine, four under CI's load), so the bound leaves room for that.
    const workspaceId: string = up.body.workspace.id;
    expect(await tableVersions(svc, workspaceId)).toBeLessThanOrEqual(10);

    const docs = await query<{ attempts: number; chunk_count: number | null; status: string; id: string }>(
      svc.dbs.urls.service,
      'SELECT id, status, attempts, chunk_count FROM documents WHERE run_id = $1',
      [up.body.run.id],
    );
    expect(docs.every((d) => d.attempts === 1)).toBe(true);
    const counts = await svc.deps.index.countRowsByDocument(
      workspaceId,
      docs.map((d) => d.id),
    );
    for (const d of docs) expect(counts.get(d.id), d.id).toBe(d.status === 'ready' ? d.chunk_count : 0);
    for (const i of [0, 17, 29]) {
      const r = await api.post('/v1/search', { workspaceId, q: `noteword${i}x` });
      expect(r.body.results.map((x: { citation: { filename: string } }) => x.citation.filename)).toEqual([
        `note-${i}.md`,
      ]);
    }
  });

  it('comes back to remove the index versions it had to keep after the last write', async () => {
    svc = await startTestService({ worker: false });
    const api = client(svc.url, await svc.key());
    const up = await api.upload(notes(3));
    await svc.startWorker();
    await api.waitForRun(up.body.run.id, 60_000);
    // The maintenance after the writes keeps the versions they just replaced and schedules itself
    // again for when those may go; without that, a table that stops changing keeps them for good.
    const later = await waitFor(async () => {
      const rows = await query<{ seconds: number }>(
        svc!.dbs.urls.workflow,
        `SELECT extract(epoch FROM start_after - now())::float8 AS seconds FROM service.job
         WHERE name = 'maintain-workspace' AND state = 'created' AND data->>'workspaceId' = $1`,
        [up.body.workspace.id],
      );
      return rows[0] && rows[0].seconds > 30 ? rows[0].seconds : undefined;
    }, 30_000);
    expect(later).toBeLessThanOrEqual(65);
  });
});

describe('claiming a batch', () => {
  it('takes one workspace within the byte budget, and a large, retried or unfetched document alone', async () => {
    svc = await startTestService({ worker: false });
    const api = client(svc.url, await svc.key());
    const a = await api.upload([...notes(3, 'alpha'), { name: 'big.txt', content: 'x '.repeat(30_000) }]);
    const b = await api.upload(notes(1, 'beta'));
    const ids = (up: typeof a) => up.body.documents.map((d: { id: string }) => d.id) as string[];
    const [a0, a1, a2, big] = ids(a);
    const [b0] = ids(b);
    const store = svc.deps.work;
    const options = { leaseSeconds: 30, maxAttempts: 3, maxBytes: 10_000 };

    const first = await store.claimDocuments([a0!, b0!, a1!, big!, a2!], 'wrk_1', options);
    expect(first.claimed.map((d) => d.id)).toEqual([a0, a1, a2]);
    expect(first.deferred).toEqual([b0, big]);
    expect(first.claimed.every((d) => d.status === 'processing' && d.stage === 'queued')).toBe(true);
    // Claimed, not started: no attempt counted yet.
    expect(first.claimed.map((d) => d.attempts)).toEqual([0, 0, 0]);

    // Another worker finds them held; the other workspace, not served yet, has its turn before a's
    // second batch, although its job comes after the large document's.
    const second = await store.claimDocuments([a0!, big!, b0!], 'wrk_2', options);
    expect(second.skipped).toEqual([{ documentId: a0, reason: 'leased_elsewhere' }]);
    expect(second.claimed.map((d) => d.id)).toEqual([b0]);
    expect(second.deferred).toEqual([big]);

    // a0 is started and its attempt fails (lease released): next time it goes alone.
    expect(await startDocument(store, a0!, 'wrk_1', 'parsing')).toEqual({
      held: true,
      runStatus: 'processing',
      attempts: 1,
    });
    await store.releaseLeases([a0!], 'wrk_1');
    // a1 and a2 were never started: given back, they are claimable again as if never claimed.
    await store.unclaimDocuments([a1!, a2!], 'wrk_1');
    const third = await store.claimDocuments([a0!, a1!, a2!], 'wrk_3', options);
    expect(third.claimed.map((d) => [d.id, d.attempts])).toEqual([[a0, 1]]);
    expect(third.deferred).toEqual([a1, a2]);
    // The large document comes first in its batch, so it goes alone.
    const fourth = await store.claimDocuments([big!, a1!, a2!], 'wrk_3', options);
    expect(fourth.claimed.map((d) => d.id)).toEqual([big]);
    expect(fourth.deferred).toEqual([a1, a2]);
  });

  it('reports the pace of a run, and lets a pause stop a batch between documents without counting an attempt', async () => {
    svc = await startTestService({ worker: false });
    const api = client(svc.url, await svc.key());
    const up = await api.upload(notes(2));
    const [d0, d1] = up.body.documents.map((d: { id: string }) => d.id) as string[];
    const store = svc.deps.work;
    const claim = await store.claimDocuments([d0!, d1!], 'wrk_1', {
      leaseSeconds: 30,
      maxAttempts: 3,
      maxBytes: 10_000,
    });
    expect(claim.claimed).toHaveLength(2);
    expect(await startDocument(store, d0!, 'wrk_1', 'parsing')).toMatchObject({ runStatus: 'processing' });
    // The run's pace comes from what workers finished: nothing yet, then one document.
    const runUrl = `/v1/runs/${up.body.run.id}`;
    expect((await api.get(runUrl)).body).toMatchObject({ documentsPerSecond: null, etaSeconds: null });
    await new Promise((r) => setTimeout(r, 200));
    const finished = await store.finishDocuments('wrk_1', [
      { documentId: d0!, result: { status: 'ready', chunkCount: 1 } },
    ]);
    expect([...finished]).toEqual([d0]);
    const pace = (await api.get(`${runUrl}/progress`)).body;
    expect(pace.documentsPerSecond).toBeGreaterThan(0);
    // One document left at that pace (the API rounds the pace to two decimals).
    expect(Math.abs(pace.etaSeconds - 1 / pace.documentsPerSecond)).toBeLessThan(1.01);
    expect((await api.post(`/v1/runs/${up.body.run.id}/pause`)).body.status).toBe('paused');
    expect(await startDocument(store, d1!, 'wrk_1', 'parsing')).toEqual({
      held: true,
      runStatus: 'paused',
      attempts: 0,
    });
    const rows = await query<{ id: string; attempts: number; stage: string }>(
      svc.dbs.urls.service,
      'SELECT id, attempts, stage FROM documents WHERE id = ANY($1) ORDER BY id',
      [[d0, d1]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.attempts, r.stage]]))).toEqual({
      [d0!]: [1, 'done'],
      [d1!]: [0, 'queued'],
    });
    expect((await api.get(runUrl)).body).toMatchObject({ documentsPerSecond: null, etaSeconds: null });
    // The batch gives it back: waiting in the queue again, for when the run resumes.
    await store.unclaimDocuments([d1!], 'wrk_1');
    const back = await query<{ status: string; lease_owner: string | null }>(
      svc.dbs.urls.service,
      'SELECT status, lease_owner FROM documents WHERE id = $1',
      [d1],
    );
    expect(back).toEqual([{ status: 'queued', lease_owner: null }]);
  });
});

async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 250));
  }
}
