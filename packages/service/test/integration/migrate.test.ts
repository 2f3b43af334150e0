import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { runMigrations } from '../../src/adapters/postgres/migrate.js';
import { migrationsDir, packageRoot } from '../../src/paths.js';
import { waitFor } from '../support/wait.js';

const run = promisify(execFile);
const cli = path.join(packageRoot(), 'dist', 'cli.js');
const { adminUrl } = inject('testPg');
const created: string[] = [];

function urlOf(db: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function emptyDatabase(): Promise<string> {
  const name = `mig_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await admin((c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
  created.push(name, `${name}_workflow`);
  return name;
}

/** Tables, columns, indexes and constraints: what a migration could change. */
async function schemaFingerprint(db: string): Promise<string> {
  const c = new pg.Client({ connectionString: urlOf(db) });
  await c.connect();
  try {
    const cols = await c.query(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = 'public' ORDER BY 1, 2`,
    );
    const idx = await c.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`,
    );
    const rows = await c.query('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
    const accounts = await c.query('SELECT id, name FROM accounts ORDER BY id');
    return JSON.stringify([cols.rows, idx.rows, rows.rows, accounts.rows]);
  } finally {
    await c.end();
  }
}

const cliEnv = (db: string) => ({ PATH: process.env.PATH ?? '', DATABASE_URL: urlOf(db), LOG_LEVEL: 'warn' });

beforeAll(async () => {
  // The CLI tests run the built bundle (npm test builds it first).
  await run(process.execPath, [cli, 'help']);
});

afterAll(async () => {
  await admin(async (c) => {
    for (const db of created) await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(db)} WITH (FORCE)`);
  });
});

describe('migrations', () => {
  it('applied twice, change nothing the second time', async () => {
    const db = await emptyDatabase();
    const first = await runMigrations(urlOf(db), migrationsDir(), () => {});
    expect(first.applied).toContain('0001_init.sql');
    const after1 = await schemaFingerprint(db);
    const second = await runMigrations(urlOf(db), migrationsDir(), () => {});
    expect(second.applied).toEqual([]);
    expect(second.version).toBe(first.version);
    expect(await schemaFingerprint(db)).toBe(after1);
  });

  it('wait for the lock while another migration holds it, and say so', async () => {
    const db = await emptyDatabase();
    const holder = new pg.Client({ connectionString: urlOf(db) });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock(727100001)');
    const lines: string[] = [];
    let finished = false;
    const migrating = runMigrations(urlOf(db), migrationsDir(), (l) => lines.push(l)).finally(() => {
      finished = true;
    });
    await waitFor('the migration to report the lock', () => lines.length > 0);
    expect(lines).toEqual(['[migrate] waiting for the migration lock']);
    expect(finished).toBe(false);
    await holder.query('SELECT pg_advisory_unlock(727100001)');
    await holder.end();
    const result = await migrating;
    expect(result.applied).toContain('0001_init.sql');
  });

  it('run concurrently, apply each file exactly once', async () => {
    const db = await emptyDatabase();
    const results = await Promise.all(
      [1, 2, 3].map(() => runMigrations(urlOf(db), migrationsDir(), () => {})),
    );
    const appliedCounts = results.map((r) => r.applied.length).sort();
    expect(appliedCounts.slice(0, 2)).toEqual([0, 0]);
    expect(appliedCounts[2]).toBeGreaterThan(0);
  });

  it('refuse a migration file that was edited after it was applied', async () => {
    const db = await emptyDatabase();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-mig-'));
    try {
      await cp(migrationsDir(), dir, { recursive: true });
      await runMigrations(urlOf(db), dir, () => {});
      await writeFile(path.join(dir, '0001_init.sql'), '-- edited\nSELECT 1;');
      await expect(runMigrations(urlOf(db), dir, () => {})).rejects.toThrow(
        /0001_init\.sql was changed after it was applied/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('docslurp migrate', () => {
  it('applies the migrations and installs the job engine, then exits 0', async () => {
    const db = await emptyDatabase();
    const { stdout } = await run(process.execPath, [cli, 'migrate'], { env: cliEnv(db) });
    expect(stdout).toContain('[migrate] applied 0001_init.sql');
    expect(stdout).toMatch(/\[migrate\] schema is at version \d+/);
    const ns = await new pg.Client({ connectionString: urlOf(`${db}_workflow`) });
    await ns.connect();
    const r = await ns.query(
      `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'service'`,
    );
    await ns.end();
    expect(r.rows[0].n).toBeGreaterThan(0);
    const again = await run(process.execPath, [cli, 'migrate'], { env: cliEnv(db) });
    expect(again.stdout).not.toContain('applied 0001');
  });

  it('prints "[migrate] failed: <reason>" and exits non-zero when the database is unreachable', async () => {
    const err = await run(process.execPath, [cli, 'migrate'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'postgres://postgres@127.0.0.1:9/service' },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(1);
    expect((err as { stderr: string }).stderr).toMatch(/^\[migrate\] failed: .*ECONNREFUSED/m);
  });

  it('fails the same way on a bad configuration', async () => {
    const err = await run(process.execPath, [cli, 'migrate'], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: 'postgres://x@127.0.0.1:9/s',
        NODE_ENV: 'production',
      },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(1);
    expect((err as { stderr: string }).stderr).toMatch(
      /^\[migrate\] failed: the workflow namespace must be non-default in production/m,
    );
  });
});
