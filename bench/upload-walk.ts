/**
 * The walk of an upload through the service's code: how many of its source files and functions one
 * document passes through, and how many calls they make, from `POST /v1/ingest/bulk` to its run's
 * completion. The real server and worker in this process, over the machine's PostgreSQL (fresh
 * databases, dropped after), counted with V8's precise coverage of this process after a first upload
 * loaded and warmed everything. The parser's sandbox process and the preparation threads are other
 * isolates and are not counted; the run is watched from PostgreSQL directly, so no polling request
 * is counted either. Background loops (the job queue's poll, the reconciler) run in any window: the
 * same window taken idle, after the upload, says how much of the count they are.
 *
 * Run from a checkout (not bundled: coverage counts each source file on its own), with PostgreSQL at
 * DATABASE_URL (default the machine's): `npx tsx bench/upload-walk.ts`; prints one line of JSON per
 * document size. Issue 42 compared checkouts with it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { quoteIdent } from '../packages/service/src/adapters/postgres/db.js';
import { runMigrations } from '../packages/service/src/adapters/postgres/migrate.js';
import { buildApp } from '../packages/service/src/app.js';
import { loadConfig } from '../packages/service/src/config.js';
import { createDeps } from '../packages/service/src/deps.js';
import { createApiKey } from '../packages/service/src/domain/keys.js';
import { createLogger } from '../packages/service/src/logger.js';
import { migrationsDir } from '../packages/service/src/paths.js';
import { type Coverage, walkOf } from './lib/coverage.js';

// The worker's start-up moved from processing/ to main/ (issue 42 §5): the walk runs in checkouts of both.
const workerModule = new URL('../packages/service/src/main/worker.ts', import.meta.url);
const { startWorker } = (await import(
  existsSync(workerModule) ? workerModule.href : '../packages/service/src/processing/worker.js'
)) as typeof import('../packages/service/src/main/worker.js');

const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const withDatabase = (db: string) => {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  return u.toString();
};
const name = `walk_${process.pid}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
await admin.query(`CREATE DATABASE ${quoteIdent(`${name}_workflow`)}`);
const urls = { service: withDatabase(name), workflow: withDatabase(`${name}_workflow`) };
await runMigrations(urls.service, migrationsDir(), () => {});
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-walk-'));

const config = loadConfig({
  DATA_DIR: dataDir,
  DATABASE_URL: urls.service,
  WORKFLOW_DATABASE_URL: urls.workflow,
  SERVER_PORT: '0',
  LOG_LEVEL: process.env.WALK_LOG ?? 'silent',
  JOB_POLL_INTERVAL_SECONDS: '0.5',
  RATE_LIMIT_PER_MINUTE: '0',
});
const deps = await createDeps(config, createLogger(process.env.WALK_LOG ?? 'silent'), urls);
const app = await buildApp(deps);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
const worker = await startWorker({
  ...deps,
  evaluating: deps,
  concurrency: config.worker.docConcurrency,
  batchDocuments: config.worker.batchDocuments,
  batchMaxBytes: config.worker.batchMaxBytes,
  syncConcurrency: config.worker.syncConcurrency,
  evaluationConcurrency: config.worker.evaluationConcurrency,
  syncsPerAccount: config.worker.syncsPerAccount,
  reconcileIntervalSeconds: 3600,
  leaseSeconds: config.worker.leaseSeconds,
  maxAttempts: config.worker.maxAttempts,
  auditRetentionDays: 365,
});
const account = await deps.accounts.ensureAccount('default');
const { secret } = await createApiKey(deps.accounts, {
  accountId: account.id,
  scopes: ['ingest'],
  name: 'walk',
});
const db = new pg.Client({ connectionString: urls.service });
await db.connect();

const paragraph =
  'Employees get twenty-five days of paid vacation a year. Unused days may be carried over until the end of March. ';
/** A short note (prepared on the worker's loop since issue 42 §7) and a page-long one (in a thread). */
const SIZES = { short: 1, long: 50 };

async function upload(text: string, filename: string): Promise<number> {
  const started = performance.now();
  const form = new FormData();
  form.append('files', new Blob([text], { type: 'text/markdown' }), filename);
  const res = await fetch(`${base}/v1/ingest/bulk`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}` },
    body: form,
  });
  const body = (await res.json()) as { run: { id: string } };
  if (res.status !== 202 && res.status !== 200)
    throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`);
  for (;;) {
    const { rows } = await db.query<{ status: string }>('SELECT status FROM runs WHERE id = $1', [
      body.run.id,
    ]);
    if (rows[0]?.status === 'completed') return performance.now() - started;
    if (rows[0] && rows[0].status !== 'processing') throw new Error(`run ${body.run.id} ${rows[0].status}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
try {
  for (const [size, paragraphs] of Object.entries(SIZES)) {
    const text = `# Leave\n\n${paragraph.repeat(paragraphs)}\n`;
    await upload(text, `warm-${size}.md`);
    // Taking the coverage resets the counts: what follows is the measured upload's alone.
    await session.post('Profiler.takePreciseCoverage');
    const ms = await upload(text, `leave-${size}.md`);
    const measured = walkOf((await session.post('Profiler.takePreciseCoverage')).result as Coverage);
    await new Promise((r) => setTimeout(r, ms));
    const idle = walkOf((await session.post('Profiler.takePreciseCoverage')).result as Coverage);
    process.stdout.write(
      `${JSON.stringify({ size, chars: text.length, ms: Math.round(ms), ...measured, idle: { files: idle.files, functions: idle.functions, calls: idle.calls } })}\n`,
    );
  }
} finally {
  await session.post('Profiler.stopPreciseCoverage');
  await db.end();
  await worker.stop();
  await app.close();
  await deps.close();
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(`${name}_workflow`)} WITH (FORCE)`);
  await admin.end();
  await rm(dataDir, { recursive: true, force: true });
}
