import pg from 'pg';

// BIGINT counts (COUNT(*), sizes) arrive as strings by default; every one we read fits in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export function createPool(url: string, max: number, applicationName: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, application_name: applicationName });
  // An idle client losing its connection (database restart) must not crash the process; the pool
  // replaces it and the next query reports the failure to its caller.
  pool.on('error', () => {});
  return pool;
}

export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || 'postgres';
}

/** Creates the database named in `url` when it does not exist (connecting to the server's `postgres` database). */
export async function ensureDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`).catch((err: { code?: string }) => {
        // Another process created it between our check and our CREATE.
        if (err.code !== '42P04' && err.code !== '23505') throw err;
      });
    }
  } finally {
    await client.end();
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
