import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { startEmbeddedPostgres } from '../../src/adapters/postgres/embedded.js';
import { runMigrations } from '../../src/adapters/postgres/migrate.js';
import { PgBossQueue } from '../../src/adapters/queue/pgboss.js';
import { silentLog } from '../../src/domain/log.js';
import { migrationsDir } from '../../src/paths.js';

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
 * One PostgreSQL for the whole run: the machine's when DATABASE_URL is set, otherwise an embedded
 * one. Template databases (migrated service schema, installed job engine) make each test file's
 * own databases a fast `CREATE DATABASE … TEMPLATE`.
 */
export default async function setup(project: TestProject) {
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
