import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LanceSearchIndex } from '../../src/adapters/index/lancedb.js';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { loadConfig } from '../../src/config.js';
import { lanceStorageOptions } from '../../src/deps.js';
import {
  adminQuery,
  type FaultStack,
  longPdf,
  startFaultStack,
  withDb,
  workerInside,
} from '../support/fault-stack.js';
import { startS3Server, type TestS3 } from '../support/s3.js';

/**
 * Fault: `kill -9` of a worker process while it is inside a document (issue 7). The other worker
 * must take the document over once its lease lapses, finish it, and leave its chunks in the index
 * exactly once.
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
  }, 180_000);
});
