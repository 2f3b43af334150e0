import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { adminQuery, eventually, withDb } from '../support/fault-stack.js';
import { client } from '../support/http.js';
import { type PrivatePostgres, startPrivatePostgres } from '../support/private-postgres.js';
import {
  baseEnv,
  freePort,
  type RunningProcess,
  runCli,
  startCli,
  waitForHealth,
} from '../support/processes.js';
import { type RestartableS3, startRestartableS3 } from '../support/restartable-s3.js';

/**
 * Issue 14: a dependency that is down when the stack's processes start is reported exactly like one
 * that goes down later. The server stays up (`/health` 200), `/ready` is 503 naming the dependency
 * with a reason an operator can act on, API calls that need it answer 503 with a code naming it, the
 * worker waits and says why, and both recover without a restart once the dependency is back.
 */
const adminUrl = () => inject('testPg').adminUrl;
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

interface Processes {
  url: string;
  key: string;
  server: RunningProcess;
  worker: RunningProcess;
  api: ReturnType<typeof client>;
}

async function stackEnv(databaseUrl: string, objectsEnv: Record<string, string>) {
  const port = await freePort();
  const key = `dsk_${randomBytes(20).toString('hex')}`;
  const env = {
    ...baseEnv(),
    ...objectsEnv,
    NODE_ENV: 'production',
    WORKFLOW_NAMESPACE: 'service',
    DATABASE_URL: databaseUrl,
    SERVER_BIND_ADDRESS: '127.0.0.1',
    SERVER_PORT: String(port),
    SERVICE_BOOTSTRAP_API_KEY: key,
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    RECONCILE_INTERVAL_SECONDS: '1',
    LOG_LEVEL: 'info',
  };
  return { env, url: `http://127.0.0.1:${port}`, key };
}

function startProcesses(env: Record<string, string>, url: string, key: string): Processes {
  const server = startCli('server', ['server'], env);
  const worker = startCli('worker', ['worker'], env);
  cleanups.push(async () => {
    await server.stop();
    await worker.stop();
  });
  return { url, key, server, worker, api: client(url, key) };
}

type ReadyBody = { status: string; checks: Record<string, { ok: boolean; error?: string }> };

async function ready(url: string): Promise<{ status: number; body: ReadyBody }> {
  const r = await fetch(`${url}/ready`);
  return { status: r.status, body: (await r.json()) as ReadyBody };
}

/** The processes are still running some seconds after start: what a restart loop never shows. */
async function staysUp(p: Processes, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    expect((await fetch(`${p.url}/health`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
  }
  expect(p.server.child.exitCode, p.server.output()).toBeNull();
  expect(p.worker.child.exitCode, p.worker.output()).toBeNull();
}

async function uploadAndSearch(p: Processes, timeoutMs = 90_000): Promise<void> {
  const word = `quartz${randomBytes(3).toString('hex')}z`;
  const up = await p.api.upload([{ name: 'note.md', content: `# Note\n\nThe word is ${word}.\n` }]);
  expect(up.status, JSON.stringify(up.body)).toBe(202);
  const progress = await p.api.waitForRun(up.body.run.id, timeoutMs);
  expect(progress.counts).toMatchObject({ total: 1, ready: 1 });
  const found = await p.api.post('/v1/search', { workspaceId: up.body.workspace.id, q: word });
  expect(found.status).toBe(200);
  expect(found.body.results.map((h: { citation: { filename: string } }) => h.citation.filename)).toEqual([
    'note.md',
  ]);
}

async function freshDatabase(prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await adminQuery(adminUrl(), `CREATE DATABASE ${quoteIdent(name)}`);
  cleanups.push(async () => {
    for (const db of [name, `${name}_workflow`])
      await adminQuery(adminUrl(), `DROP DATABASE IF EXISTS ${quoteIdent(db)} WITH (FORCE)`);
  });
  return withDb(adminUrl(), name);
}

describe('a dependency that is down when the processes start', () => {
  it('object storage down: up and unready, 503 storage_unavailable, the worker waits; recovers', async () => {
    const s3: RestartableS3 = await startRestartableS3();
    cleanups.push(() => s3.destroy());
    const { env, url, key } = await stackEnv(await freshDatabase('su_s3'), s3.env);
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.output).toBe(0);
    await s3.stop();

    const p = startProcesses(env, url, key);
    await waitForHealth(url, 60_000);
    await p.worker.waitFor(/"msg":"worker started"/, 60_000);
    // LanceDB used to connect in a promise nobody awaited: the process died a few seconds after start.
    await staysUp(p, 6);

    // The index's first connection attempt may still be retrying (its probe then times out); from the
    // first failure on, /ready names the cause.
    const r = await eventually('/ready to name why the index is down', async () => {
      const x = await ready(url);
      return /unreachable/.test(x.body.checks.searchIndex?.error ?? '') ? x : undefined;
    });
    expect(r.status).toBe(503);
    expect(r.body.checks.database?.ok).toBe(true);
    expect(r.body.checks.objectStore).toMatchObject({
      ok: false,
      error: expect.stringMatching(/unreachable/),
    });
    expect(r.body.checks.searchIndex).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^the search index is unreachable: object storage at http:\/\/127\.0\.0\.1:\d+/,
      ),
    });

    const search = await p.api.post('/v1/search', { workspaceId: 'ws_missing', q: 'anything' });
    expect(search.status).toBe(404); // the database answers for workspaces; the index is not needed
    const up = await p.api.upload([{ name: 'a.md', content: '# A\n\nText.\n' }]);
    expect(up.status).toBe(503);
    expect(up.headers.get('retry-after')).toBe('5');
    expect(up.body.error).toMatchObject({
      code: 'storage_unavailable',
      message: /^Object storage is unavailable/,
    });

    await s3.start();
    await eventually('/ready to turn 200', async () =>
      (await ready(url)).status === 200 ? true : undefined,
    );
    await uploadAndSearch(p);
    expect(p.server.child.exitCode).toBeNull();
  }, 180_000);

  it('object storage refusing the keys: the reason is readable and requests answer 503', async () => {
    const s3: RestartableS3 = await startRestartableS3();
    cleanups.push(() => s3.destroy());
    const databaseUrl = await freshDatabase('su_keys');
    const good = await stackEnv(databaseUrl, s3.env);
    const migrated = await runCli(['migrate'], good.env);
    expect(migrated.code, migrated.output).toBe(0);
    // Upload with the right keys first, so the index has a table to search.
    const setup = startProcesses(good.env, good.url, good.key);
    await waitForHealth(good.url, 60_000);
    const up = await setup.api.upload([{ name: 'a.md', content: '# A\n\nThe ferry leaves at nine.\n' }]);
    expect((await setup.api.waitForRun(up.body.run.id, 90_000)).counts.ready).toBe(1);
    await setup.server.stop();
    await setup.worker.stop();

    const wrong = await stackEnv(databaseUrl, { ...s3.env, AWS_ACCESS_KEY_ID: 'nosuchkey' });
    const p = startProcesses({ ...wrong.env, SERVICE_BOOTSTRAP_API_KEY: good.key }, wrong.url, good.key);
    await waitForHealth(wrong.url, 60_000);
    await p.worker.waitFor(/"msg":"worker started"/, 60_000);
    await staysUp(p, 6);

    const r = await ready(wrong.url);
    expect(r.status).toBe(503);
    for (const check of ['objectStore', 'searchIndex']) {
      expect(r.body.checks[check]).toMatchObject({
        ok: false,
        error: expect.stringMatching(/object storage refused the credentials \(InvalidAccessKeyId\)/),
      });
    }
    const search = await p.api.post('/v1/search', { workspaceId: up.body.workspace.id, q: 'ferry' });
    expect(search.status).toBe(503);
    expect(search.body.error.code).toBe('storage_unavailable');
    const text = await p.api.get(`/v1/documents/${up.body.documents[0].id}/content`);
    expect(text.status).toBe(503);
    expect(text.body.error.code).toBe('storage_unavailable');
  }, 180_000);

  it('PostgreSQL down: the server answers 503 database_unavailable, the worker waits; both recover', async () => {
    const pgServer: PrivatePostgres = await startPrivatePostgres();
    cleanups.push(() => pgServer.destroy());
    await adminQuery(pgServer.url(), 'CREATE DATABASE service');
    const s3 = await startRestartableS3();
    cleanups.push(() => s3.destroy());
    const { env, url, key } = await stackEnv(pgServer.url('service'), s3.env);
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.output).toBe(0);
    await pgServer.stop('fast');

    const p = startProcesses(env, url, key);
    await waitForHealth(url, 60_000);
    const waiting = await p.worker.waitFor(/the worker is waiting for the database/, 60_000);
    expect(waiting).toMatch(/ECONNREFUSED/);
    await staysUp(p, 4);

    const r = await ready(url);
    expect(r.status).toBe(503);
    expect(r.body.checks.database).toMatchObject({ ok: false, error: expect.stringMatching(/database/) });
    expect(r.body.checks.objectStore?.ok).toBe(true);
    const search = await p.api.post('/v1/search', { workspaceId: 'ws_x', q: 'anything' });
    expect(search.status).toBe(503);
    expect(search.body.error).toMatchObject({ code: 'database_unavailable' });

    await pgServer.start();
    // The bootstrap key is provisioned once the database answers; the worker starts on its own.
    await p.worker.waitFor(/"msg":"worker started"/, 90_000);
    await eventually('/ready to turn 200', async () =>
      (await ready(url)).status === 200 ? true : undefined,
    );
    await eventually('the bootstrap key to work', async () =>
      (await p.api.get('/v1/runs/run_missing')).status === 404 ? true : undefined,
    );
    await uploadAndSearch(p);
  }, 240_000);
});
