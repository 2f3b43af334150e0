import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, inTransaction, type Pool } from '../../src/adapters/postgres/db.js';
import { createTestDatabases } from '../support/service.js';

/**
 * A transaction's connection lost while its code awaits something else (a database restart mid-batch)
 * fails that transaction and leaves the process and the pool working. Without a listener on the
 * checked-out client, node-postgres raised an unhandled 'error' event and the worker died.
 */
let pool: Pool;
let admin: Pool;

beforeAll(async () => {
  const dbs = await createTestDatabases();
  pool = createPool(dbs.urls.service, 2, 'transaction-test');
  admin = createPool(dbs.urls.service, 1, 'transaction-test-admin');
});

afterAll(async () => {
  await pool.end();
  await admin.end();
});

describe('a transaction whose connection is terminated between statements', () => {
  it('fails with the database reported unavailable, and the pool serves the next query', async () => {
    const attempt = inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // No statement in flight while the server closes the connection.
      await new Promise((r) => setTimeout(r, 500));
      await client.query('SELECT 1');
    });
    await expect(attempt).rejects.toMatchObject({ name: 'DependencyUnavailable' });
    const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(rows[0]!.one).toBe(1);
  });
});
