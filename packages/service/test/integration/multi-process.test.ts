import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { client } from '../support/http.js';
import {
  baseEnv,
  freePort,
  type RunningProcess,
  runCli,
  startCli,
  waitForHealth,
} from '../support/processes.js';
import { startS3Server, type TestS3 } from '../support/s3.js';

/**
 * The stack's process layout without containers: `migrate`, then one `server` and two `worker`
 * processes of the built CLI, on the machine's PostgreSQL and Redis and an S3 server on loopback.
 */
const dbName = `mp_${randomBytes(5).toString('hex')}`;
const adminUrl = () => inject('testPg').adminUrl;
let s3: TestS3;
let env: Record<string, string>;
const processes: RunningProcess[] = [];
const bootstrapKey = `dsk_${randomBytes(20).toString('hex')}`;
let url: string;

function withDb(u: string, db: string): string {
  const x = new URL(u);
  x.pathname = `/${db}`;
  return x.toString();
}

async function withClient<T>(connectionString: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
const admin = <T>(fn: (c: pg.Client) => Promise<T>) => withClient(adminUrl(), fn);

beforeAll(async () => {
  // The bucket does not exist yet: migrate creates it, as on a fresh MinIO volume.
  s3 = await startS3Server({ createBucket: false });
  // The database exists (compose's PostgreSQL creates it from POSTGRES_DB); its _workflow sibling does not.
  await admin((c) => c.query(`CREATE DATABASE ${quoteIdent(dbName)}`));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  env = {
    ...baseEnv(),
    ...s3.env,
    NODE_ENV: 'production',
    WORKFLOW_NAMESPACE: 'service',
    DATABASE_URL: withDb(adminUrl(), dbName),
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    SERVER_BIND_ADDRESS: '127.0.0.1',
    SERVER_PORT: String(port),
    SERVICE_BOOTSTRAP_API_KEY: bootstrapKey,
    WORKER_DOC_CONCURRENCY: '1',
    // Small batches, so that a few dozen documents make enough batches for both workers.
    WORKER_BATCH_DOCUMENTS: '4',
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    RECONCILE_INTERVAL_SECONDS: '2',
    LOG_LEVEL: 'info',
  };
});

afterAll(async () => {
  for (const p of processes) await p.stop();
  await s3?.close();
  await admin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
    await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(`${dbName}_workflow`)} WITH (FORCE)`);
  });
});

describe('migrate, server and two workers as separate processes', () => {
  it('migrate applies the migrations, creates the job database and the bucket, and is idempotent', async () => {
    const first = await runCli(['migrate'], env);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain('[migrate] applied 0001_init.sql');
    expect(first.output).toContain('[migrate] applied 0002_processed_by.sql');
    expect(first.output).toContain('[migrate] created bucket service-files');
    expect(first.output).toMatch(/\[migrate\] schema is at version \d+ \(\d+ applied now\)/);

    const again = await runCli(['migrate'], env);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/\(0 applied now\)/);
    expect(again.output).not.toContain('created bucket');
    const workflowDb = await admin((c) =>
      c.query('SELECT 1 FROM pg_database WHERE datname = $1', [`${dbName}_workflow`]),
    );
    expect(workflowDb.rowCount).toBe(1);
  });

  it('starts the server and two workers', async () => {
    const server = startCli('server', ['server'], env);
    const workers = [startCli('worker-1', ['worker'], env), startCli('worker-2', ['worker'], env)];
    processes.push(server, ...workers);
    await waitForHealth(url, 30_000);
    for (const w of workers) await w.waitFor(/"msg":"worker started"/, 30_000);
  });

  it('spreads a batch over both workers and serves search from what they indexed', async () => {
    const api = client(url, bootstrapKey);
    const files = Array.from({ length: 48 }, (_, i) => ({
      name: `memo-${i}.md`,
      content: `# Memo ${i}\n\nThe code word for memo ${i} is quartz${i}x. It was filed by team ${i % 4}.\n`,
    }));
    const up = await api.upload(files);
    expect(up.status).toBe(202);
    const progress = await api.waitForRun(up.body.run.id, 120_000);
    expect(progress.counts).toMatchObject({ total: 48, ready: 48, failed: 0 });

    const workerIds = [];
    for (const w of processes.filter((p) => p.name.startsWith('worker'))) {
      const line = await w.waitFor(/"msg":"worker started"/);
      workerIds.push((JSON.parse(line) as { workerId: string }).workerId);
    }
    expect(new Set(workerIds).size).toBe(2);

    const byWorker = await withClient(env.DATABASE_URL!, async (c) => {
      const r = await c.query<{ processed_by: string; n: number }>(
        'SELECT processed_by, count(*)::int AS n FROM documents GROUP BY processed_by',
      );
      return Object.fromEntries(r.rows.map((row) => [row.processed_by, row.n]));
    });
    expect(Object.keys(byWorker).sort()).toEqual([...workerIds].sort());
    for (const id of workerIds) expect(byWorker[id]).toBeGreaterThan(0);
    expect(Object.values(byWorker).reduce((a, b) => a + b, 0)).toBe(48);

    // The server process reads what the worker processes wrote to the shared index.
    for (const i of [0, 23, 47]) {
      const r = await api.post('/v1/search', { workspaceId: up.body.workspace.id, q: `quartz${i}x` });
      expect(r.status).toBe(200);
      expect(r.body.results[0].citation.filename).toBe(`memo-${i}.md`);
    }
  });

  it('reports the stack ready and stops every process cleanly on SIGTERM', async () => {
    const ready = await client(url).get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.schemaVersion).toBeGreaterThanOrEqual(2);
    for (const p of processes) {
      const { code } = await p.stop();
      expect(code, `${p.name}:\n${p.output()}`).toBe(0);
    }
  });
});
