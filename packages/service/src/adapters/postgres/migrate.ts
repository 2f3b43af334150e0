import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

/** Arbitrary constant shared by every `migrate` process of this service. */
const MIGRATION_LOCK_KEY = 727_100_001;

export interface MigrationResult {
  applied: string[];
  version: number;
}

interface MigrationFile {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((n) => /^\d{4}_[\w-]+\.sql$/.test(n)).sort();
  const files: MigrationFile[] = [];
  for (const name of names) {
    const sql = await readFile(path.join(dir, name), 'utf8');
    files.push({
      version: Number(name.slice(0, 4)),
      name,
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  return files;
}

/**
 * Applies the numbered SQL files in `dir` that are not yet applied, each in its own transaction, under
 * an advisory lock so that concurrent `migrate` processes apply each file exactly once.
 */
export async function runMigrations(
  url: string,
  dir: string,
  log: (line: string) => void,
): Promise<MigrationResult> {
  const files = await readMigrations(dir);
  const client = new pg.Client({ connectionString: url, application_name: 'docslurp-migrate' });
  await client.connect();
  try {
    const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
      MIGRATION_LOCK_KEY,
    ]);
    if (!got.rows[0]?.ok) {
      log('[migrate] waiting for the migration lock');
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    }
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Map(
      (
        await client.query<{ version: number; name: string; checksum: string }>(
          'SELECT version, name, checksum FROM schema_migrations',
        )
      ).rows.map((r) => [r.version, r]),
    );
    const applied: string[] = [];
    for (const file of files) {
      const previous = done.get(file.version);
      if (previous) {
        if (previous.checksum !== file.checksum) {
          throw new Error(`migration ${file.name} was changed after it was applied (checksum differs)`);
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(file.sql);
        await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          file.version,
          file.name,
          file.checksum,
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw new Error(`${file.name}: ${(err as Error).message}`);
      }
      applied.push(file.name);
      log(`[migrate] applied ${file.name}`);
    }
    const version = files.length ? Math.max(...files.map((f) => f.version)) : 0;
    return { applied, version };
  } finally {
    await client.query('SELECT pg_advisory_unlock_all()').catch(() => {});
    await client.end().catch(() => {});
  }
}
