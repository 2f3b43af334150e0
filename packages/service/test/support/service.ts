import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { activeTraceIds } from '../../src/adapters/tracing/propagate.js';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createDeps, type DatabaseUrls, type Deps } from '../../src/deps.js';
import { createApiKey } from '../../src/domain/keys.js';
import { observingStages } from '../../src/domain/stopwatch.js';
import type { Scope } from '../../src/domain/types.js';
import { createLogger } from '../../src/logger.js';
import { type RunningWorker, startWorker } from '../../src/processing/worker.js';

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

export interface TestDatabases {
  adminUrl: string;
  urls: DatabaseUrls;
  drop(): Promise<void>;
}

/** Fresh service and job-engine databases for one test file, cloned from the run's templates. */
export async function createTestDatabases(): Promise<TestDatabases> {
  const { adminUrl, serviceTemplate, workflowTemplate } = inject('testPg');
  const name = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(serviceTemplate)}`);
    await admin.query(
      `CREATE DATABASE ${quoteIdent(`${name}_workflow`)} TEMPLATE ${quoteIdent(workflowTemplate)}`,
    );
  } finally {
    await admin.end();
  }
  return {
    adminUrl,
    urls: { service: withDatabase(adminUrl, name), workflow: withDatabase(adminUrl, `${name}_workflow`) },
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(`${name}_workflow`)} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface TestService {
  url: string;
  config: Config;
  deps: Deps;
  dbs: TestDatabases;
  dataDir: string;
  worker: RunningWorker | undefined;
  /** Creates an API key in `account` (default account when omitted). */
  key(scopes?: Scope[], account?: string): Promise<string>;
  startWorker(): Promise<RunningWorker>;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  /** Run a worker in the same process (default true). */
  worker?: boolean;
  /** Where the service logs (default: LOG_LEVEL to stdout). */
  log?: Logger;
  /** The port to listen on (default: any free one), for settings that must name the URL beforehand. */
  port?: number;
}

/** The real server (listening on a loopback port) and, by default, a worker, over real PostgreSQL. */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dbs = await createTestDatabases();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-test-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: dbs.urls.service,
    WORKFLOW_DATABASE_URL: dbs.urls.workflow,
    SERVER_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    JOB_POLL_INTERVAL_SECONDS: '0.5',
    RECONCILE_INTERVAL_SECONDS: '2',
    RATE_LIMIT_PER_MINUTE: '0',
    READY_RATE_LIMIT_PER_MINUTE: '0',
    ...options.env,
  });
  const log =
    options.log ?? createLogger(config.logLevel, { traceIds: config.tracing ? activeTraceIds : undefined });
  const deps = await createDeps(config, log, dbs.urls);
  const app = await buildApp(deps);
  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const workers: RunningWorker[] = [];
  const launchWorker = async () => {
    const w = await startWorker({
      ...deps,
      evaluating: deps,
      concurrency: config.worker.docConcurrency,
      batchDocuments: config.worker.batchDocuments,
      batchMaxBytes: config.worker.batchMaxBytes,
      syncConcurrency: config.worker.syncConcurrency,
      evaluationConcurrency: config.worker.evaluationConcurrency,
      syncsPerAccount: config.worker.syncsPerAccount,
      reconcileIntervalSeconds: config.worker.reconcileIntervalSeconds,
      leaseSeconds: config.worker.leaseSeconds,
      maxAttempts: config.worker.maxAttempts,
      auditRetentionDays: 365,
      observeStage: observingStages(deps.metrics.observeStage, deps.tracer),
    });
    workers.push(w);
    return w;
  };
  const worker = options.worker === false ? undefined : await launchWorker();
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    deps,
    dbs,
    dataDir,
    worker,
    startWorker: launchWorker,
    async key(scopes: Scope[] = ['ingest', 'search', 'artifacts'], account = 'default') {
      const acc = await deps.accounts.ensureAccount(account);
      return (await createApiKey(deps.accounts, { accountId: acc.id, scopes, name: 'test' })).secret;
    },
    async close() {
      for (const w of workers) await w.stop();
      await app.close();
      await deps.close();
      await dbs.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
