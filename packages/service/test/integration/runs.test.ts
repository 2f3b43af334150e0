import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { capturingLog, WARN } from '../support/log.js';
import { startTestService, type TestService } from '../support/service.js';
import { startDocument } from '../support/start.js';
import { holdsFor, waitFor } from '../support/wait.js';

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

const files = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    name: `note-${i}.txt`,
    content: `Note number ${i} about topic ${i}.`,
  }));

async function jobsIn(svcUrl: string): Promise<number> {
  const c = new pg.Client({ connectionString: svcUrl });
  await c.connect();
  const r = await c.query(
    `SELECT count(*)::int AS n FROM service.job WHERE name = 'process-document' AND state < 'completed'`,
  );
  await c.end();
  return r.rows[0].n as number;
}

describe('run control', () => {
  it('pauses a run (nothing new starts), resumes it to completion', async () => {
    svc = await startTestService({ worker: false });
    const api = client(svc.url, await svc.key());
    const up = await api.upload(files(3));
    const runId = up.body.run.id;

    const paused = await api.post(`/v1/runs/${runId}/pause`);
    expect([paused.status, paused.body.status]).toEqual([200, 'paused']);
    // Pausing twice is fine; resuming a run that is not paused is a conflict only once it finished.
    expect((await api.post(`/v1/runs/${runId}/pause`)).body.status).toBe('paused');

    // A worker that picks the jobs up while the run is paused leaves the documents waiting.
    await svc.startWorker();
    const workflow = svc.dbs.urls.workflow;
    await waitFor('the worker to take the jobs', async () => (await jobsIn(workflow)) === 0);
    const during = await api.get(`/v1/runs/${runId}/progress`);
    expect(during.body.status).toBe('paused');
    expect(during.body.counts.queued).toBe(3);

    const resumed = await api.post(`/v1/runs/${runId}/resume`);
    expect(resumed.body.status).toBe('processing');
    const done = await api.waitForRun(runId);
    expect(done).toMatchObject({ status: 'completed', counts: { ready: 3 } });
    const conflict = await api.post(`/v1/runs/${runId}/pause`);
    expect([conflict.status, conflict.body.error.code]).toEqual([409, 'invalid_run_state']);
  });

  it('cancels a run: waiting documents are cancelled and never processed', async () => {
    svc = await startTestService({ worker: false });
    const api = client(svc.url, await svc.key());
    const up = await api.upload(files(2));
    const cancelled = await api.post(`/v1/runs/${up.body.run.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', counts: { cancelled: 2, queued: 0 } });
    await svc.startWorker();
    const workflow = svc.dbs.urls.workflow;
    await waitFor('the worker to take the jobs', async () => (await jobsIn(workflow)) === 0);
    const after = await api.get(`/v1/runs/${up.body.run.id}/progress`);
    expect(after.body.status).toBe('cancelled');
    expect(after.body.documents.map((d: { status: string }) => d.status)).toEqual(['cancelled', 'cancelled']);
    expect((await api.post(`/v1/runs/${up.body.run.id}/resume`)).status).toBe(409);
  });

  it('a stopped worker takes no more jobs; the next worker does', async () => {
    svc = await startTestService();
    const api = client(svc.url, await svc.key());
    await svc.worker?.stop();
    const up = await api.upload(files(2));
    const workflow = svc.dbs.urls.workflow;
    // Four polling intervals of the job engine (JOB_POLL_INTERVAL_SECONDS is 0.5 in tests).
    await holdsFor(
      'two queued documents with two waiting jobs',
      async () =>
        (await api.get(`/v1/runs/${up.body.run.id}/progress`)).body.counts.queued === 2 &&
        (await jobsIn(workflow)) === 2,
      2000,
    );

    await svc.startWorker();
    expect(await api.waitForRun(up.body.run.id)).toMatchObject({ counts: { ready: 2 } });
  });
});

describe('jobs (domain/jobs.ts)', () => {
  it('drops a job whose payload does not match its schema, saying so, and keeps working', async () => {
    const { log, lines } = capturingLog();
    svc = await startTestService({ log });
    const api = client(svc.url, await svc.key());
    const c = new pg.Client({ connectionString: svc.dbs.urls.workflow });
    await c.connect();
    const bad = await c.query<{ id: string }>(
      `INSERT INTO service.job (name, data) VALUES ('process-document', '{"documentId": 42}') RETURNING id`,
    );
    const state = async () =>
      (await c.query<{ state: string }>('SELECT state FROM service.job WHERE id = $1', [bad.rows[0]!.id]))
        .rows[0]?.state;
    await waitFor('the bad job to be taken', async () => (await state()) === 'completed');
    await c.end();
    const warning = lines.find((l) => l.level === WARN && l.msg === 'job engine error');
    expect(JSON.stringify(warning)).toMatch(/has an invalid payload/);
    const up = await api.upload(files(1));
    expect(await api.waitForRun(up.body.run.id)).toMatchObject({ status: 'completed' });
  });
});

describe('recovery by the reconciler', () => {
  it('processes documents whose jobs were lost (crash between commit and enqueue, or a restore)', async () => {
    svc = await startTestService({ worker: false });
    const api = client(svc.url, await svc.key());
    const up = await api.upload(files(4));
    expect(await jobsIn(svc.dbs.urls.workflow)).toBe(4);
    // Lose every job, as a crash right after the upload's commit would.
    const c = new pg.Client({ connectionString: svc.dbs.urls.workflow });
    await c.connect();
    await c.query(`DELETE FROM service.job WHERE name = 'process-document'`);
    await c.end();
    expect(await jobsIn(svc.dbs.urls.workflow)).toBe(0);
    // Queued a minute ago, as before a restore: less than the bound after which any waiting document
    // is sent again (LOST_JOB_AFTER_SECONDS), but the job engine holds fewer jobs than the queue has
    // documents, so the reconciler knows they were lost and sends them at once.
    const s = new pg.Client({ connectionString: svc.dbs.urls.service });
    await s.connect();
    await s.query(`UPDATE documents SET updated_at = now() - interval '1 minute'`);
    await s.end();

    await svc.startWorker();
    const done = await api.waitForRun(up.body.run.id);
    expect(done).toMatchObject({ status: 'completed', counts: { ready: 4 } });
  });

  it('is not misled by a job left active by a handler cut off from its database', async () => {
    svc = await startTestService({ worker: false });
    const api = client(svc.url, await svc.key());
    const up = await api.upload(files(1));
    const c = new pg.Client({ connectionString: svc.dbs.urls.workflow });
    await c.connect();
    // The upload's job is lost in an outage; a handler that ran during it could not record its
    // end, so the engine counts its job as active until it expires (hours later).
    await c.query(`DELETE FROM service.job WHERE name = 'process-document'`);
    await c.query(
      `INSERT INTO service.job (name, data, state, started_on, expire_in)
       VALUES ('process-document', '{"documentId": "doc_gone"}', 'active', now() - interval '10 minutes',
               interval '6 hours')`,
    );
    await c.end();
    const s = new pg.Client({ connectionString: svc.dbs.urls.service });
    await s.connect();
    await s.query(`UPDATE documents SET updated_at = now() - interval '1 minute'`);
    await s.end();

    // One waiting document, no waiting job, one active job: the active one is too old to be the
    // waiting document's, so the document is sent again now rather than after LOST_JOB_AFTER_SECONDS.
    await svc.startWorker();
    const done = await api.waitForRun(up.body.run.id, 30_000);
    expect(done).toMatchObject({ status: 'completed', counts: { ready: 1 } });
  });

  it('completes a run whose index maintenance died with its worker once a lease has lapsed, not after a minute', async () => {
    svc = await startTestService({ worker: false, env: { DOCUMENT_LEASE_SECONDS: '3' } });
    const api = client(svc.url, await svc.key());
    const up = await api.upload(files(2));
    const worker = await svc.startWorker();
    await api.waitForRun(up.body.run.id);
    await worker.stop();
    // As a worker killed while folding the run's rows in leaves it: done but for the fold, its
    // maintenance job gone with the worker (the engine would count it active for hours), and no
    // later batch of the workspace to send another.
    const s = new pg.Client({ connectionString: svc.dbs.urls.service });
    await s.connect();
    await s.query(
      `UPDATE runs SET status = 'processing', finished_at = NULL,
         awaiting_index_since = now() - interval '5 seconds' WHERE id = $1`,
      [up.body.run.id],
    );
    await s.end();
    const w = new pg.Client({ connectionString: svc.dbs.urls.workflow });
    await w.connect();
    await w.query(`DELETE FROM service.job WHERE name = 'maintain-workspace'`);
    await w.end();

    await svc.startWorker();
    const done = await api.waitForRun(up.body.run.id, 20_000);
    expect(done).toMatchObject({ status: 'completed', counts: { ready: 2 } });
  });

  it('reconciles on one worker at a time; another takes over when it stops', async () => {
    svc = await startTestService({ worker: false });
    const workers = [await svc.startWorker(), await svc.startWorker()];
    const passes = await Promise.all(workers.map((w) => w.reconcile()));
    expect(passes.filter((p) => p.ran)).toHaveLength(1);
    const holder = passes[0]!.ran ? 0 : 1;
    // The holder keeps it pass after pass; the other does nothing however often it ticks.
    expect((await workers[holder]!.reconcile()).ran).toBe(true);
    expect((await workers[1 - holder]!.reconcile()).ran).toBe(false);
    await workers[holder]!.stop();
    expect((await workers[1 - holder]!.reconcile()).ran).toBe(true);
  });

  it('takes over a document whose worker died mid-processing, and indexes it once', async () => {
    svc = await startTestService({ worker: false, env: { DOCUMENT_LEASE_SECONDS: '2' } });
    const api = client(svc.url, await svc.key());
    const up = await api.upload([{ name: 'a.md', content: '# A\n\nAlpha bravo charlie.' }]);
    const docId = up.body.documents[0].id;
    // A worker claims the document, starts it and dies without a trace: its lease simply expires.
    const options = { leaseSeconds: 2, maxAttempts: 3, maxBytes: 1024 * 1024 };
    const claim = await svc.deps.work.claimDocuments([docId], 'wrk_dead', options);
    expect(claim.claimed.map((d) => d.id)).toEqual([docId]);
    expect(await startDocument(svc.deps.work, docId, 'wrk_dead', 'parsing')).toEqual({
      held: true,
      runStatus: 'processing',
      attempts: 1,
    });
    const other = await svc.deps.work.claimDocuments([docId], 'wrk_other', options);
    expect(other.claimed).toEqual([]);
    expect(other.skipped).toEqual([{ documentId: docId, reason: 'leased_elsewhere' }]);

    await svc.startWorker();
    const done = await api.waitForRun(up.body.run.id);
    expect(done.counts.ready).toBe(1);
    const doc = (await api.get(`/v1/documents/${docId}`)).body;
    expect(doc.chunkCount).toBeGreaterThan(0);
    expect(await svc.deps.index.countDocumentRows(up.body.workspace.id, docId)).toBe(doc.chunkCount);
  });

  it('gives up on a document that keeps killing its worker, with a reason', async () => {
    svc = await startTestService({
      worker: false,
      env: { DOCUMENT_LEASE_SECONDS: '2', DOCUMENT_MAX_ATTEMPTS: '2' },
    });
    const api = client(svc.url, await svc.key());
    const up = await api.upload([{ name: 'poison.txt', content: 'crashes every worker' }]);
    const docId = up.body.documents[0].id;
    // Two workers each claimed it, started it and died (their leases expire).
    const work = svc.deps.work;
    for (const w of ['wrk_a', 'wrk_b']) {
      const claim = await work.claimDocuments([docId], w, {
        leaseSeconds: 1,
        maxAttempts: 2,
        maxBytes: 1024 * 1024,
      });
      expect(claim.claimed.map((d) => d.id)).toEqual([docId]);
      expect(await startDocument(work, docId, w, 'parsing')).toMatchObject({ held: true });
      await waitFor(`${w}'s lease to expire`, async () =>
        (await work.requeueLostDocuments(10, 3600)).includes(docId),
      );
    }
    await svc.startWorker();
    const done = await api.waitForRun(up.body.run.id);
    expect(done.status).toBe('failed');
    expect(done.failures[0]).toMatchObject({ documentId: docId, code: 'processing_failed' });
    expect(done.failures[0].message).toMatch(/2 attempts/);
  });
});
