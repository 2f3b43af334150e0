import type { Logger } from 'pino';
import { S3ObjectStore } from '../adapters/objects/s3.js';
import { databaseName, ensureDatabase } from '../adapters/postgres/db.js';
import {
  type EmbeddedPostgres,
  embeddedDatabaseUrl,
  startEmbeddedPostgres,
} from '../adapters/postgres/embedded.js';
import { runMigrations } from '../adapters/postgres/migrate.js';
import { PgBossQueue } from '../adapters/queue/pgboss.js';
import { type Config, deriveWorkflowUrl } from '../config.js';
import type { DatabaseUrls } from '../deps.js';
import { migrationsDir } from '../paths.js';

export interface Databases {
  urls: DatabaseUrls;
  embedded: EmbeddedPostgres | undefined;
}

/**
 * Where the service and job-engine databases are: DATABASE_URL (and its `_workflow` sibling) in the
 * stack, or the embedded server under DATA_DIR, which `serve` owns and other commands attach to.
 */
export async function resolveDatabases(
  config: Config,
  log: Logger,
  embeddedMode: 'own' | 'attach',
): Promise<Databases> {
  if (config.database.url) {
    return {
      urls: {
        service: config.database.url,
        workflow: config.database.workflowUrl ?? deriveWorkflowUrl(config.database.url),
      },
      embedded: undefined,
    };
  }
  const embedded = await startEmbeddedPostgres(config.dataDir, log, embeddedMode);
  const urls = {
    service: embeddedDatabaseUrl(embedded.adminUrl, 'service'),
    workflow: embeddedDatabaseUrl(embedded.adminUrl, 'service_workflow'),
  };
  await ensureDatabase(urls.service);
  return { urls, embedded };
}

/**
 * Where migrations connect: MIGRATE_DATABASE_URL's server (directly to PostgreSQL, not through a
 * pooler in transaction mode, which cannot keep the migration's session lock nor create databases),
 * with the same database names as the service's connections.
 */
export function migrationUrls(config: Config, urls: DatabaseUrls): DatabaseUrls {
  const direct = config.database.migrateUrl;
  if (!direct || direct === config.database.url) return urls;
  const on = (db: string) => {
    const u = new URL(direct);
    u.pathname = `/${encodeURIComponent(db)}`;
    return u.toString();
  };
  return { service: on(databaseName(urls.service)), workflow: on(databaseName(urls.workflow)) };
}

/** Applies the service's migrations and installs the job engine's schema: what the `migrate` command does. */
export async function migrateAll(
  config: Config,
  serviceUrls: DatabaseUrls,
  log: (line: string) => void,
): Promise<void> {
  const urls = migrationUrls(config, serviceUrls);
  await ensureDatabase(urls.workflow);
  const result = await runMigrations(urls.service, migrationsDir(), log);
  const queue = new PgBossQueue({
    url: urls.workflow,
    namespace: config.database.workflowNamespace,
    pollIntervalSeconds: config.worker.pollIntervalSeconds,
    onError: () => {},
  });
  try {
    await queue.start();
  } finally {
    await queue.stop();
  }
  if (config.objects.kind === 's3') await ensureBucket(config.objects, log);
  log(`[migrate] schema is at version ${result.version} (${result.applied.length} applied now)`);
}

/** A fresh object store has no bucket; creating it here means no extra one-shot step is needed. */
async function ensureBucket(
  options: ConstructorParameters<typeof S3ObjectStore>[0],
  log: (line: string) => void,
): Promise<void> {
  const store = new S3ObjectStore(options);
  try {
    if (await store.ensureBucket()) log(`[migrate] created bucket ${options.bucket}`);
  } finally {
    await store.close();
  }
}
