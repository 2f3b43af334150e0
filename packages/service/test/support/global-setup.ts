import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { startEmbeddedPostgres } from '../../src/adapters/postgres/embedded.js';
import { runMigrations } from '../../src/adapters/postgres/migrate.js';
import { PgBossQueue } from '../../src/adapters/queue/pgboss.js';
import { silentLog } from '../../src/domain/log.js';
import { migrationsDir } from '../../src/paths.js';
import { hasCommand } from './tools.js';

declare module 'vitest' {
  export interface ProvidedContext {
    testPg: { adminUrl: string; serviceTemplate: string; workflowTemplate: string };
  }
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/**
 * What every integration test may rely on, as the README's test prerequisites name them: the parser
 * sandbox and Redis. Without them most tests would fail one by one for the same reason, so the run
 * stops at once with one sentence instead. (Programs only some tests need skip those tests: tools.ts.)
 */
async function checkPrerequisites(): Promise<void> {
  const missing: string[] = [];
  const bwrap = process.env.PARSER_BWRAP_PATH ?? 'bwrap';
  if (!hasCommand(bwrap))
    missing.push(`bubblewrap, the parser sandbox (${bwrap}; apt-get install bubblewrap)`);
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    missing.push(`Redis at ${redisUrl} (apt-get install redis-server, or set TEST_REDIS_URL)`);
  } finally {
    redis.disconnect();
  }
  if (missing.length) {
    throw new Error(
      `npm test needs ${missing.join(' and ')}: see "The two commands" in the README for what to install`,
    );
  }
}

/**
 * One PostgreSQL for the whole run: the machine's when DATABASE_URL is set, otherwise an embedded
 * one. Template databases (migrated service schema, installed job engine) make each test file's
 * own databases a fast `CREATE DATABASE … TEMPLATE`.
 */
export default async function setup(project: TestProject) {
  await checkPrerequisites();
  let stopEmbedded: (() => Promise<void>) | undefined;
  let tmp: string | undefined;
  let adminUrl: string;
  if (process.env.DATABASE_URL) {
    adminUrl = withDatabase(process.env.DATABASE_URL, 'postgres');
  } else {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'docslurp-test-pg-'));
    // mkdtemp makes a private folder; as root, PostgreSQL runs as "postgres" and must enter it.
    await chmod(tmp, 0o755);
    const embedded = await startEmbeddedPostgres(tmp, silentLog, 'own');
    adminUrl = embedded.adminUrl;
    stopEmbedded = () => embedded.stop();
  }
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const serviceTemplate = `tpl_service_${suffix}`;
  const workflowTemplate = `tpl_workflow_${suffix}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${quoteIdent(serviceTemplate)}`);
  await admin.query(`CREATE DATABASE ${quoteIdent(workflowTemplate)}`);
  await runMigrations(withDatabase(adminUrl, serviceTemplate), migrationsDir(), () => {});
  const queue = new PgBossQueue({
    url: withDatabase(adminUrl, workflowTemplate),
    namespace: 'service',
    pollIntervalSeconds: 0.5,
    onError: () => {},
  });
  await queue.start();
  await queue.stop();
  project.provide('testPg', { adminUrl, serviceTemplate, workflowTemplate });

  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(serviceTemplate)} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(workflowTemplate)} WITH (FORCE)`);
    await admin.end();
    await stopEmbedded?.();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  };
}
