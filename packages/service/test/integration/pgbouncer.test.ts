import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { client } from '../support/http.js';
import { pgbouncerBinary, startPgBouncer, type TestPgBouncer } from '../support/pgbouncer.js';
import {
  baseEnv,
  freePort,
  type RunningProcess,
  runCli,
  startCli,
  waitForHealth,
} from '../support/processes.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { skipWithout } from '../support/tools.js';

/**
 * Managed PostgreSQL often sits behind PgBouncer in transaction pooling mode: every connection of the
 * server and the workers goes through a real one here, and only `migrate` connects directly
 * (MIGRATE_DATABASE_URL), since it holds a session lock. Without pgbouncer installed the test is
 * skipped with the reason, except where DOCSLURP_TEST_TOOLS=required (CI), where it fails.
 */
const binary = pgbouncerBinary();
const skip = skipWithout(
  binary ? undefined : 'pgbouncer not found (apt-get install pgbouncer)',
  'the PgBouncer test',
);

const dbName = `pgb_${randomBytes(5).toString('hex')}`;
const adminUrl = () => inject('testPg').adminUrl;
const processes: RunningProcess[] = [];
const bootstrapKey = `dsk_${randomBytes(20).toString('hex')}`;
let s3: TestS3;
let bouncer: TestPgBouncer;
let env: Record<string, string>;
let url: string;

async function query<T extends pg.QueryResultRow>(connectionString: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

function onDatabase(u: string, db: string): string {
  const x = new URL(u);
  x.pathname = `/${db}`;
  return x.toString();
}

describe.skipIf(skip)('the stack through PgBouncer in transaction mode', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    await query(adminUrl(), `CREATE DATABASE ${quoteIdent(dbName)}`);
    bouncer = await startPgBouncer(adminUrl());
    const direct = onDatabase(adminUrl(), dbName);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = {
      ...baseEnv(),
      ...s3.env,
      NODE_ENV: 'production',
      WORKFLOW_NAMESPACE: 'service',
      DATABASE_URL: bouncer.through(direct),
      MIGRATE_DATABASE_URL: direct,
      SERVER_BIND_ADDRESS: '127.0.0.1',
      SERVER_PORT: String(port),
      SERVICE_BOOTSTRAP_API_KEY: bootstrapKey,
      WORKER_BATCH_DOCUMENTS: '4',
      RECONCILE_INTERVAL_SECONDS: '2',
      LOG_LEVEL: 'info',
    };
  });

  afterAll(async () => {
    for (const p of processes) await p.stop();
    await bouncer?.close();
    await s3?.close();
    await query(adminUrl(), `DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
    await query(adminUrl(), `DROP DATABASE IF EXISTS ${quoteIdent(`${dbName}_workflow`)} WITH (FORCE)`);
  });

  it('migrates over the direct connection, then a server and two workers process a run through the pooler', async () => {
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.output).toBe(0);
    expect(migrated.output).toContain('[migrate] applied 0001_init.sql');

    const server = startCli('server', ['server'], env);
    const workers = [startCli('worker-1', ['worker'], env), startCli('worker-2', ['worker'], env)];
    processes.push(server, ...workers);
    await waitForHealth(url, 30_000);
    const ids: string[] = [];
    for (const w of workers)
      ids.push(
        (JSON.parse(await w.waitFor(/"msg":"worker started"/, 30_000)) as { workerId: string }).workerId,
      );

    const api = client(url, bootstrapKey);
    const files = Array.from({ length: 40 }, (_, i) => ({
      name: `note-${i}.md`,
      content: `# Note ${i}\n\nThe pooled word of note ${i} is cobalt${i}z.\n`,
    }));
    const up = await api.upload(files);
    expect(up.status).toBe(202);
    const progress = await api.waitForRun(up.body.run.id, 120_000);
    expect(progress.counts).toMatchObject({ total: 40, ready: 40, failed: 0 });
    const r = await api.post('/v1/search', { workspaceId: up.body.workspace.id, q: 'cobalt17z' });
    expect(r.body.results[0].citation.filename).toBe('note-17.md');

    // Both workers took a share, each document once.
    const shares = await query<{ processed_by: string; n: number; attempts: number }>(
      onDatabase(adminUrl(), dbName),
      'SELECT processed_by, count(*)::int AS n, max(attempts) AS attempts FROM documents GROUP BY processed_by',
    );
    expect(shares.map((s) => s.processed_by).sort()).toEqual([...ids].sort());
    for (const s of shares) expect(s.attempts).toBe(1);

    // The pooler carried the service's and the job engine's connections, in transaction mode.
    const pools = await query<{ database: string; pool_mode: string }>(bouncer.adminUrl, 'SHOW POOLS');
    const ours = pools.filter((p) => p.database === dbName || p.database === `${dbName}_workflow`);
    expect(ours.map((p) => p.database).sort()).toEqual([dbName, `${dbName}_workflow`]);
    for (const p of ours) expect(p.pool_mode).toBe('transaction');
    const stats = await query<{ database: string; total_xact_count: string }>(bouncer.adminUrl, 'SHOW STATS');
    for (const db of [dbName, `${dbName}_workflow`])
      expect(Number(stats.find((s) => s.database === db)?.total_xact_count)).toBeGreaterThan(40);

    const ready = await client(url).get('/ready');
    expect(ready.body.status).toBe('ready');
    for (const p of processes) {
      const { code } = await p.stop();
      expect(code, `${p.name}:\n${p.output()}`).toBe(0);
    }
    processes.length = 0;
  });

  it('migrate never goes through the pooler: its session lock needs a connection of its own', async () => {
    const xacts = async () =>
      (await query<{ database: string; total_xact_count: string }>(bouncer.adminUrl, 'SHOW STATS'))
        .filter((s) => s.database === dbName || s.database === `${dbName}_workflow`)
        .map((s) => `${s.database}:${s.total_xact_count}`)
        .sort();
    // Nothing else runs now (the processes stopped): whatever the pooler counts is migrate's.
    const before = await xacts();
    const again = await runCli(['migrate'], env);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/\(0 applied now\)/);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await xacts()).toEqual(before);
  });
});
