import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { S3ObjectStore } from '../../src/adapters/objects/s3.js';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { buildApp } from '../../src/app.js';
import { type Config, deriveWorkflowUrl, loadConfig } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { ensureBootstrapKey } from '../../src/domain/keys.js';
import { createLogger } from '../../src/logger.js';
import { type RunningWorker, startWorker } from '../../src/main/worker.js';
import { packageRoot } from '../../src/paths.js';
import { makePdf } from '../support/fixtures.js';
import { client } from '../support/http.js';
import { baseEnv, runCli, spawnProcess } from '../support/processes.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { missingCommands, skipWithout } from '../support/tools.js';

/**
 * The backup and restore scripts in --direct mode (pg_dump, pg_restore and the CLI on this
 * machine) against the machine's PostgreSQL and an S3 server on loopback: back up, wipe
 * everything, restore, and search as before. test/stack runs the same scripts through compose.
 */
const repo = path.resolve(packageRoot(), '..', '..');
const suffix = randomBytes(4).toString('hex');
const role = `br_role_${suffix}`;
const dbName = `br_${suffix}`;
const password = `pw${randomBytes(8).toString('hex')}`;
let tmp: string;
let envFile: string;
let s3: TestS3;
let envValues: Record<string, string>;

/** The major version of the test PostgreSQL (18 when embedded, the machine's when DATABASE_URL is set). */
async function serverMajor(): Promise<number> {
  const c = new pg.Client({ connectionString: inject('testPg').adminUrl });
  await c.connect();
  try {
    return Math.floor(Number((await c.query('SHOW server_version_num')).rows[0].server_version_num) / 10000);
  } finally {
    await c.end();
  }
}

const dumpMajor = (): number =>
  Number(/\(PostgreSQL\) (\d+)/.exec(execFileSync('pg_dump', ['--version'], { encoding: 'utf8' }))?.[1]);

const server = await serverMajor();
const clientMissing = missingCommands(['pg_dump', 'pg_restore', 'pg_isready', 'psql']);
const skipBackup = skipWithout(
  clientMissing ??
    (dumpMajor() < server
      ? `pg_dump ${dumpMajor()} cannot dump the test PostgreSQL ${server} (install PostgreSQL ${server}'s client programs, or set DATABASE_URL to a PostgreSQL ${dumpMajor()})`
      : undefined),
  'backup and restore with pg_dump',
);

function withDb(url: string, db: string, user?: string, pass?: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  if (user) u.username = user;
  if (pass) u.password = encodeURIComponent(pass);
  return u.toString();
}

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: inject('testPg').adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Server and (optionally) a worker in this process, over the env file's settings. */
async function startService(withWorker: boolean) {
  const config: Config = loadConfig({
    ...envValues,
    SERVER_PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    RECONCILE_INTERVAL_SECONDS: '1',
  });
  const urls = { service: config.database.url!, workflow: deriveWorkflowUrl(config.database.url!) };
  const deps: Deps = await createDeps(config, createLogger('silent'), urls);
  const app: FastifyInstance = await buildApp(deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  let worker: RunningWorker | undefined;
  if (withWorker) {
    worker = await startWorker({
      ...deps,
      evaluating: deps,
      concurrency: 1,
      batchDocuments: config.worker.batchDocuments,
      batchMaxBytes: config.worker.batchMaxBytes,
      syncConcurrency: config.worker.syncConcurrency,
      evaluationConcurrency: config.worker.evaluationConcurrency,
      syncsPerAccount: config.worker.syncsPerAccount,
      reconcileIntervalSeconds: 1,
      leaseSeconds: config.worker.leaseSeconds,
      maxAttempts: config.worker.maxAttempts,
      auditRetentionDays: 365,
    });
  }
  const key = envValues.SERVICE_BOOTSTRAP_API_KEY!;
  await ensureBootstrapKey(deps.accounts, key);
  return {
    api: client(url, key),
    async stop() {
      await worker?.stop();
      await app.close();
      await deps.close();
    },
  };
}

const script = (name: string, args: string[]) => {
  const p = spawnProcess(name, process.execPath, [path.join(repo, 'scripts', name), ...args], baseEnv());
  return p.exited.then(({ code }) => ({ code, output: p.output() }));
};

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'docslurp-backup-'));
  s3 = await startS3Server();
  await admin(`CREATE ROLE ${role} LOGIN CREATEDB PASSWORD '${password}'`);
  await admin(`CREATE DATABASE ${quoteIdent(dbName)} OWNER ${role}`);
  const databaseUrl = withDb(inject('testPg').adminUrl, dbName, role, password);
  envValues = {
    DB_PASSWORD: password,
    DATABASE_URL: databaseUrl,
    ...s3.env,
    METRICS_SECRET: randomBytes(8).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SERVICE_BOOTSTRAP_API_KEY: `dsk_${randomBytes(20).toString('hex')}`,
    SELFHOST_URL: 'http://localhost:8080',
    NODE_ENV: 'production',
    WORKFLOW_NAMESPACE: 'service',
  };
  envFile = path.join(tmp, '.env.selfhost');
  await writeFile(
    envFile,
    Object.entries(envValues)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );
  const migrate = await runCli(['migrate'], { ...baseEnv(), ...envValues });
  expect(migrate.code, migrate.output).toBe(0);
});

afterAll(async () => {
  await s3?.close();
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(`${dbName}_workflow`)} WITH (FORCE)`);
  await admin(`DROP ROLE IF EXISTS ${role}`);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe.skipIf(skipBackup)('backup, wipe, restore (--direct)', () => {
  it('restores a stack that searches exactly as before, and resubmits work that was queued', async () => {
    const queries = ['what is the refund window', 'where are spare keys kept'];
    let svc = await startService(true);
    const up = await svc.api.upload([
      {
        name: 'policy.pdf',
        content: makePdf(['Returns.', 'The refund window is thirty days from delivery.']),
        type: 'application/pdf',
      },
      { name: 'office.md', content: '# Office\n\nSpare keys are kept in the blue cabinet by reception.\n' },
    ]);
    const workspaceId = up.body.workspace.id;
    expect((await svc.api.waitForRun(up.body.run.id, 60_000)).counts.ready).toBe(2);
    const snapshot = async () => {
      const out = [];
      for (const q of queries)
        out.push((await svc.api.post('/v1/search', { workspaceId, q, topK: 3 })).body.results);
      return out;
    };
    const before = await snapshot();
    expect(before[0][0].citation).toMatchObject({ filename: 'policy.pdf', page: 2 });
    await svc.stop();

    // No worker: this document stays queued, its job only in the job database the backup leaves out.
    svc = await startService(false);
    const pending = await svc.api.upload(
      [{ name: 'pending.txt', content: 'The pending note names the colour vermilion.' }],
      {
        workspaceId,
      },
    );
    await svc.stop();

    const out = path.join(tmp, 'backup');
    const backup = await script('selfhost-backup.mjs', ['--direct', '--env-path', envFile, '--out', out]);
    expect(backup.code, backup.output).toBe(0);
    expect(backup.output).toMatch(/\[backup\] database: service\.dump, \d+ bytes, \d+ tables/);
    expect(backup.output).toMatch(
      /\[backup\] bucket: \d+ objects, \d+ bytes, checked against the bucket's listing/,
    );
    expect((await readdir(out)).sort()).toEqual(['.env.selfhost', 'backup.json', 'bucket', 'service.dump']);
    expect((await readdir(path.join(out, 'bucket'))).sort()).toEqual(['derived', 'lancedb', 'raw']);
    expect(await readFile(path.join(out, '.env.selfhost'), 'utf8')).toBe(await readFile(envFile, 'utf8'));
    // Keys, hashes and stored credentials: readable by the owner only, whatever the umask says.
    expect((await stat(out)).mode & 0o777).toBe(0o700);
    for (const file of ['.env.selfhost', 'backup.json', 'service.dump'])
      expect((await stat(path.join(out, file))).mode & 0o777, file).toBe(0o600);

    // Wipe: both databases, every object and the bucket itself, the env file.
    await admin(`DROP DATABASE ${quoteIdent(dbName)} WITH (FORCE)`);
    await admin(`DROP DATABASE ${quoteIdent(`${dbName}_workflow`)} WITH (FORCE)`);
    await admin(`CREATE DATABASE ${quoteIdent(dbName)} OWNER ${role}`);
    const bucket = new S3ObjectStore({
      ...s3,
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
    });
    const keys = [];
    for await (const o of bucket.list()) keys.push(o.key);
    await bucket.delete(keys);
    await bucket.client.send(new DeleteBucketCommand({ Bucket: s3.bucket }));
    await bucket.close();
    await unlink(envFile);

    const restore = await script('selfhost-restore.mjs', [out, '--direct', '--env-path', envFile]);
    expect(restore.code, restore.output).toBe(0);
    expect(restore.output).toContain('[restore] restored the database from service.dump');
    expect(restore.output).toMatch(/\[restore\] bucket: \d+ objects \(\d+ bytes\) in place and checked/);
    expect(await readFile(envFile, 'utf8')).toBe(await readFile(path.join(out, '.env.selfhost'), 'utf8'));

    const migrate = await runCli(['migrate'], { ...baseEnv(), ...envValues });
    expect(migrate.code, migrate.output).toBe(0);
    svc = await startService(true);
    try {
      expect(await snapshot()).toEqual(before);
      const resubmitted = await svc.api.waitForRun(pending.body.run.id, 60_000);
      expect(resubmitted.counts).toMatchObject({ total: 1, ready: 1 });
      const found = await svc.api.post('/v1/search', { workspaceId, q: 'vermilion' });
      expect(found.body.results[0].citation.filename).toBe('pending.txt');
    } finally {
      await svc.stop();
    }
    // Three service starts, a backup, a wipe, a restore and a migration: about 40 s on an idle
    // machine, over the suite's 60 s default when the machine is busy.
  }, 240_000);

  it('refuses to put back an env file over a different one', async () => {
    const out = path.join(tmp, 'backup');
    const other = path.join(tmp, 'other.env');
    await writeFile(other, 'DB_PASSWORD=something-else\n');
    const r = await script('selfhost-restore.mjs', [out, '--direct', '--env-path', other]);
    expect(r.code).toBe(1);
    expect(r.output).toContain('exists and differs from the backup');
    expect(await readFile(other, 'utf8')).toBe('DB_PASSWORD=something-else\n');
  });
});

describe.skipIf(skipWithout(missingCommands(['psql']), 'the pg_dump version check'))(
  'a pg_dump older than the server',
  () => {
    it('fails at once with one sentence naming the version needed, writing nothing', async () => {
      // A stand-in pg_dump that reports an old version: nothing else of it runs.
      const bin = path.join(tmp, 'old-client');
      await mkdir(bin);
      await writeFile(path.join(bin, 'pg_dump'), '#!/bin/sh\necho "pg_dump (PostgreSQL) 9.6.24"\n');
      await chmod(path.join(bin, 'pg_dump'), 0o755);
      const out = path.join(tmp, 'never-written');
      const p = spawnProcess(
        'selfhost-backup.mjs',
        process.execPath,
        [path.join(repo, 'scripts', 'selfhost-backup.mjs'), '--direct', '--env-path', envFile, '--out', out],
        { ...baseEnv(), PATH: `${bin}:${process.env.PATH}` },
      );
      const { code } = await p.exited;
      expect(code).toBe(1);
      expect(p.output().trim()).toBe(
        `pg_dump 9 cannot back up this database, which runs PostgreSQL ${server}: install pg_dump ${server} or newer (PostgreSQL ${server}'s client programs) and run the backup again`,
      );
      await expect(stat(out)).rejects.toThrow(/ENOENT/);
    });
  },
);
