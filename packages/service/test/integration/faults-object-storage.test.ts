import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import {
  adminQuery,
  eventually,
  type FaultStack,
  longPdf,
  startFaultStack,
  withDb,
  workerInside,
} from '../support/fault-stack.js';
import { type RestartableS3, startRestartableS3 } from '../support/restartable-s3.js';

/**
 * Fault: object storage becomes unreachable after uploads were acknowledged (issue 7). Their
 * documents are retried, then fail with `storage_unavailable`; `/ready` is 503 naming object storage;
 * uploads are refused with a JSON 503 meanwhile; once storage is back, new uploads work.
 */
const dbName = `fs_${randomBytes(5).toString('hex')}`;
const adminUrl = () => inject('testPg').adminUrl;
let s3: RestartableS3;
let stack: FaultStack | undefined;

const admin = (sql: string) => adminQuery(adminUrl(), sql);

beforeAll(async () => {
  s3 = await startRestartableS3();
  await admin(`CREATE DATABASE ${quoteIdent(dbName)}`);
  stack = await startFaultStack({ databaseUrl: withDb(adminUrl(), dbName), objectsEnv: s3.env, workers: 1 });
});

afterAll(async () => {
  await stack?.stop();
  await s3?.destroy();
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(`${dbName}_workflow`)} WITH (FORCE)`);
});

describe('object storage unavailable', () => {
  it('retries, then fails the documents with a reason; refuses uploads with 503; recovers', async () => {
    const s = stack!;
    // The only worker is busy inside a long PDF, so the notes uploaded next are acknowledged (their
    // bytes stored) but not yet read back when storage goes away.
    const pdf = await s.api.upload([
      { name: 'manual.pdf', content: longPdf('unusedword'), type: 'application/pdf' },
    ]);
    expect(pdf.status).toBe(202);
    await workerInside(s, pdf.body.documents[0].id);
    const notes = await s.api.upload(
      [
        { name: 'a.md', content: '# A\n\nFirst note.\n' },
        { name: 'b.md', content: '# B\n\nSecond note.\n' },
      ],
      { workspaceId: pdf.body.workspace.id },
    );
    expect(notes.status).toBe(202);
    await s3.stop();

    const ready = await eventually('/ready to report object storage down', async () => {
      const r = await fetch(`${s.url}/ready`);
      return r.status === 503
        ? ((await r.json()) as { status: string; checks: Record<string, { ok: boolean; error?: string }> })
        : undefined;
    });
    expect(ready.status).toBe('unavailable');
    expect(ready.checks.objectStore).toMatchObject({
      ok: false,
      error: expect.stringMatching(/object storage is unreachable/),
    });
    expect(ready.checks.database?.ok).toBe(true);
    // The search index lives in the same bucket.
    expect(ready.checks.searchIndex?.ok).toBe(false);

    // An upload cannot store its bytes: refused at once with the API's JSON 503, not a 500 or a hang.
    const refused = await s.api.upload([{ name: 'c.md', content: '# C\n\nThird note.\n' }]);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringMatching(/^Object storage is unavailable/),
    });

    // The search index lives in the same bucket: a search is refused the same way.
    const search = await s.api.post('/v1/search', { workspaceId: pdf.body.workspace.id, q: 'note' });
    expect(search.status).toBe(503);
    expect(search.body.error.code).toBe('storage_unavailable');

    // Every acknowledged document is retried, then fails with a code that names the cause.
    for (const run of [pdf.body.run.id, notes.body.run.id]) {
      const progress = await s.api.waitForRun(run, 120_000);
      expect(progress.status).toBe('failed');
      for (const d of progress.documents) {
        expect(d.status, JSON.stringify(d)).toBe('failed');
        expect(d.error.code).toBe('storage_unavailable');
        expect(d.error.message).toMatch(/^Processing failed after 3 attempts: object storage is unreachable/);
      }
    }
    const attempts = await s.db((c) => c.query<{ attempts: number }>('SELECT attempts FROM documents'));
    expect(attempts.rows.map((r) => r.attempts)).toEqual([3, 3, 3]);
    expect(s.workers[0]!.process.child.exitCode).toBeNull();
    expect(s.server.child.exitCode).toBeNull();

    // Storage comes back: ready again, and a new upload goes through to search.
    await s3.start();
    await eventually('/ready to report ready again', async () =>
      (await fetch(`${s.url}/ready`)).status === 200 ? true : undefined,
    );
    const word = `garnet${randomBytes(3).toString('hex')}z`;
    const again = await s.api.upload([{ name: 'd.md', content: `# D\n\nThe word is ${word}.\n` }]);
    expect(again.status).toBe(202);
    const progress = await s.api.waitForRun(again.body.run.id, 60_000);
    expect(progress.counts).toMatchObject({ total: 1, ready: 1 });
    const found = await s.api.post('/v1/search', { workspaceId: again.body.workspace.id, q: word });
    expect(found.body.results.map((h: { citation: { filename: string } }) => h.citation.filename)).toEqual([
      'd.md',
    ]);
  }, 300_000);
});
