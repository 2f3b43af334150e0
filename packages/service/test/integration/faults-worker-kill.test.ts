import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LanceSearchIndex } from '../../src/adapters/index/lancedb.js';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { loadConfig } from '../../src/config.js';
import { lanceStorageOptions } from '../../src/deps.js';
import {
  adminQuery,
  eventually,
  type FaultStack,
  longPdf,
  startFaultStack,
  withDb,
  workerInside,
} from '../support/fault-stack.js';
import { makePdf } from '../support/fixtures.js';
import { startS3Server, type TestS3 } from '../support/s3.js';

/**
 * Fault: `kill -9` of a worker process while it is inside a document (issue 7), and in the middle
 * of a batch of documents (issue 17). Another worker must take the documents over once their leases
 * lapse, finish them, and leave every document's chunks in the index exactly once.
 */
const dbName = `fk_${randomBytes(5).toString('hex')}`;
const adminUrl = () => inject('testPg').adminUrl;
let s3: TestS3;
let stack: FaultStack | undefined;

const admin = (sql: string) => adminQuery(adminUrl(), sql);

beforeAll(async () => {
  s3 = await startS3Server();
  await admin(`CREATE DATABASE ${quoteIdent(dbName)}`);
  stack = await startFaultStack({
    databaseUrl: withDb(adminUrl(), dbName),
    objectsEnv: s3.env,
    workers: 2,
    // Room for every PDF of the batch test in one batch.
    env: { WORKER_BATCH_MAX_BYTES: String(16 * 1024 * 1024) },
  });
});

afterAll(async () => {
  await stack?.stop();
  await s3?.close();
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(`${dbName}_workflow`)} WITH (FORCE)`);
});

describe('kill -9 of a worker in the middle of a document', () => {
  it('the other worker finishes the document, which is indexed exactly once', async () => {
    const s = stack!;
    const uniqueWord = `zircon${randomBytes(3).toString('hex')}q`;
    const up = await s.api.upload([
      { name: 'manual.pdf', content: longPdf(uniqueWord), type: 'application/pdf' },
    ]);
    expect(up.status).toBe(202);
    const documentId: string = up.body.documents[0].id;
    const workspaceId: string = up.body.workspace.id;

    // Wait until a worker holds the document's lease and is past claiming it: inside the pipeline.
    const holder = await workerInside(s, documentId);
    const victim = s.workers.find((w) => w.id === holder)!;
    const survivor = s.workers.find((w) => w.id !== holder)!;
    expect(victim, `lease owner ${holder} is one of our workers`).toBeDefined();
    victim.process.child.kill('SIGKILL');
    expect((await victim.process.exited).signal).toBe('SIGKILL');

    // A dead process changes nothing: if the row still shows it processing, it died mid-document.
    const atDeath = await s.db((c) =>
      c.query('SELECT status, lease_owner, attempts FROM documents WHERE id = $1', [documentId]),
    );
    expect(atDeath.rows[0]).toMatchObject({ status: 'processing', lease_owner: victim.id, attempts: 1 });

    const progress = await s.api.waitForRun(up.body.run.id, 120_000);
    expect(progress.counts).toMatchObject({ total: 1, ready: 1, failed: 0 });
    const doc = await s.db((c) =>
      c.query(
        'SELECT status, processed_by, attempts, chunk_count, lease_owner FROM documents WHERE id = $1',
        [documentId],
      ),
    );
    expect(doc.rows[0]).toMatchObject({
      status: 'ready',
      processed_by: survivor.id,
      attempts: 2,
      lease_owner: null,
    });
    const chunkCount = doc.rows[0].chunk_count as number;
    expect(chunkCount).toBeGreaterThan(10);
    expect(survivor.process.output()).toMatch(
      new RegExp(`"documentId":"${documentId}".*"msg":"document processed"`),
    );

    // The index, read directly: the document's rows are its chunks, each once.
    const config = loadConfig(s.env);
    const index = new LanceSearchIndex(config.index.uri, lanceStorageOptions(config));
    try {
      expect(await index.countDocumentRows(workspaceId, documentId)).toBe(chunkCount);
      const ids: string[] = [];
      let after: string | null = null;
      for (;;) {
        const rows = await index.listRows(workspaceId, after, 500);
        if (rows.length === 0) break;
        ids.push(...rows.filter((r) => r.documentId === documentId).map((r) => r.id));
        after = rows[rows.length - 1]!.id;
      }
      expect(ids.length).toBe(chunkCount);
      expect(new Set(ids).size).toBe(chunkCount);
    } finally {
      await index.close();
    }

    const found = await s.api.post('/v1/search', { workspaceId, q: uniqueWord });
    expect(found.status).toBe(200);
    expect(found.body.results).toHaveLength(1);
    expect(found.body.results[0].citation).toMatchObject({ documentId, page: 212 });
  }, 300_000);
});

/** Rows of the whole workspace, read straight from the index: document id → chunk ids. */
async function indexedChunks(s: FaultStack, workspaceId: string): Promise<Map<string, string[]>> {
  const config = loadConfig(s.env);
  const index = new LanceSearchIndex(config.index.uri, lanceStorageOptions(config));
  try {
    const byDocument = new Map<string, string[]>();
    let after: string | null = null;
    for (;;) {
      const rows = await index.listRows(workspaceId, after, 500);
      if (rows.length === 0) break;
      for (const r of rows) byDocument.set(r.documentId, [...(byDocument.get(r.documentId) ?? []), r.id]);
      after = rows[rows.length - 1]!.id;
    }
    return byDocument;
  } finally {
    await index.close();
  }
}

describe('kill -9 of a worker in the middle of a batch', () => {
  it('loses nothing, indexes nothing twice, and charges an attempt only to documents it had started', async () => {
    const s = stack!;
    // The first test killed one of the two workers: two live ones again.
    const live = s.workers.filter((w) => w.process.child.exitCode === null && !w.process.child.signalCode);
    if (live.length < 2) await s.addWorker();
    const word = (i: number) => `garnet${i}q${randomBytes(2).toString('hex')}`;
    const words = Array.from({ length: 24 }, (_, i) => word(i));
    // 24 PDFs of 100 pages, one workspace: one batch, parsed for a few seconds, written a group at a time.
    const files = words.map((w, i) => ({
      name: `report-${i}.pdf`,
      content: makePdf(
        Array.from({ length: 100 }, (_, p) =>
          `Report ${i}, page ${p + 1}: inspection of pumps, valves and filters in hall ${p % 9}.${p === 50 ? ` Reference ${w}.` : ''} `.repeat(
            5,
          ),
        ),
      ),
      type: 'application/pdf',
    }));
    const up = await s.api.upload(files);
    expect(up.status).toBe(202);
    const runId: string = up.body.run.id;
    const workspaceId: string = up.body.workspace.id;
    const ids = up.body.documents.map((d: { id: string }) => d.id) as string[];

    type Row = {
      id: string;
      status: string;
      stage: string;
      attempts: number;
      lease_owner: string | null;
      processed_by: string | null;
    };
    const rows = () =>
      s.db(
        async (c) =>
          (
            await c.query<Row>(
              'SELECT id, status, stage, attempts, lease_owner, processed_by FROM documents WHERE run_id = $1',
              [runId],
            )
          ).rows,
      );
    // The middle of a batch: the worker has finished some of its documents, is inside one, and
    // still holds others it has not started.
    const atDeath = await eventually(
      'a worker in the middle of its batch',
      async () => {
        const r = await rows();
        const holder = r.find((d) => d.status === 'processing' && d.stage !== 'queued')?.lease_owner;
        if (!holder) return undefined;
        const mine = (d: Row) => d.lease_owner === holder || d.processed_by === holder;
        const finished = r.filter((d) => d.status === 'ready' && mine(d));
        const waiting = r.filter((d) => d.status === 'processing' && d.stage === 'queued' && mine(d));
        return finished.length > 0 && waiting.length > 0 ? { holder, rows: r } : undefined;
      },
      120_000,
      20,
    );
    const victim = s.workers.find((w) => w.id === atDeath.holder)!;
    expect(victim, `lease owner ${atDeath.holder} is one of our workers`).toBeDefined();
    victim.process.child.kill('SIGKILL');
    expect((await victim.process.exited).signal).toBe('SIGKILL');
    const before = new Map((await rows()).map((d) => [d.id, d]));
    const finishedBefore = [...before.values()].filter((d) => d.status === 'ready');
    const started = [...before.values()].filter((d) => d.status === 'processing' && d.stage !== 'queued');
    const unstarted = [...before.values()].filter((d) => d.status === 'processing' && d.stage === 'queued');
    expect(finishedBefore.length).toBeGreaterThan(0);
    expect(unstarted.length).toBeGreaterThan(0);
    expect(started.every((d) => d.attempts === 1 && d.lease_owner === victim.id)).toBe(true);

    const progress = await s.api.waitForRun(runId, 180_000);
    expect(progress.counts).toMatchObject({ total: 24, ready: 24, failed: 0 });
    const after = new Map((await rows()).map((d) => [d.id, d]));
    for (const d of finishedBefore) {
      expect(after.get(d.id), d.id).toMatchObject({ attempts: 1, processed_by: victim.id });
    }
    // Started under the dead worker: that attempt counts. Waiting in its batch: it does not.
    for (const d of started) expect(after.get(d.id)!.attempts, d.id).toBe(2);
    for (const d of unstarted) expect(after.get(d.id)!.attempts, d.id).toBe(1);
    for (const d of [...started, ...unstarted]) expect(after.get(d.id)!.processed_by).not.toBe(victim.id);

    // Every document's chunks are in the index once: as many rows as chunks, no id twice.
    const chunkCounts = await s.db(
      async (c) =>
        (
          await c.query<{ id: string; chunk_count: number }>(
            'SELECT id, chunk_count FROM documents WHERE run_id = $1',
            [runId],
          )
        ).rows,
    );
    const indexed = await indexedChunks(s, workspaceId);
    for (const { id, chunk_count } of chunkCounts) {
      expect(chunk_count, id).toBeGreaterThan(0);
      expect(indexed.get(id)?.length, id).toBe(chunk_count);
      expect(new Set(indexed.get(id)).size, id).toBe(chunk_count);
    }
    expect([...indexed.keys()].sort()).toEqual([...ids].sort());
    for (const [i, w] of words.entries()) {
      const found = await s.api.post('/v1/search', { workspaceId, q: w });
      expect(found.body.results.map((r: { citation: { filename: string } }) => r.citation.filename)).toEqual([
        `report-${i}.pdf`,
      ]);
    }
  }, 300_000);
});
