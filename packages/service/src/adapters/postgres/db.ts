import pg from 'pg';
import { DependencyUnavailable, UNREACHABLE_ERRNOS } from '../../errors.js';

// BIGINT counts (COUNT(*), sizes) arrive as strings by default; every one we read fits in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** The pool, or one client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

// Besides socket errors, the server's own: SQLSTATE class 08 (connection exception) and 57P01-57P03
// (admin shutdown, crash shutdown, cannot connect now: starting or stopping).
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03']);

/** A connection failure becomes DependencyUnavailable (a 503, a retry); any other error is kept. */
export function asUnavailable(err: unknown): unknown {
  const code = (err as { code?: unknown } | undefined)?.code;
  const lost =
    (typeof code === 'string' &&
      (UNREACHABLE_ERRNOS.has(code) || CONNECTION_SQLSTATES.has(code) || code.startsWith('08'))) ||
    (err instanceof Error &&
      /^Connection terminated|timeout exceeded when trying to connect/.test(err.message));
  if (!lost || err instanceof DependencyUnavailable) return err;
  const detail = (err as Error).message || String(code);
  return new DependencyUnavailable('database', `the database is unavailable: ${detail}`, { cause: err });
}

export function createPool(url: string, max: number, applicationName: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, application_name: applicationName });
  // An idle client losing its connection (database restart) must not crash the process; the pool
  // replaces it and the next query reports the failure to its caller.
  pool.on('error', () => {});
  // Every query of the stores goes through here or inTransaction: one place to classify failures.
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  pool.query = ((...args: unknown[]) =>
    query(...args).catch((err: unknown) => {
      throw asUnavailable(err);
    })) as typeof pool.query;
  return pool;
}

export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect().catch((err: unknown) => {
    throw asUnavailable(err);
  });
  // A checked-out client has no listener of the pool's: a connection lost between two statements (a
  // database restart while `fn` awaits something else) would be an unhandled 'error' event that ends
  // the process. The next statement reports it instead, and the broken client is discarded.
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost = err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    // After a lost connection the client only says it is "not queryable": report why it is not.
    throw asUnavailable(lost ?? err);
  } finally {
    client.off('error', onError);
    client.release(lost);
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
