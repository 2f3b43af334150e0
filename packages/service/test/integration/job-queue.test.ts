import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { PgBossQueue } from '../../src/adapters/queue/pgboss.js';
import type { JobHandlers, JobPayload } from '../../src/domain/jobs.js';

/**
 * The pg-boss adapter follows the job table: what it stores for each job (names, singleton keys,
 * retries, waits and priorities live in pg-boss's tables, so they must not drift) and what each
 * handler is given.
 */
const dbName = `jq_${randomBytes(5).toString('hex')}`;
const testPg = () => inject('testPg');
const queues: PgBossQueue[] = [];

function url(): string {
  const u = new URL(testPg().adminUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
}

async function sql<T extends pg.QueryResultRow>(connectionString: string, text: string): Promise<T[]> {
  const c = new pg.Client({ connectionString });
  await c.connect();
  try {
    return (await c.query<T>(text)).rows;
  } finally {
    await c.end();
  }
}

function queue(pollIntervalSeconds = 0.5): PgBossQueue {
  const q = new PgBossQueue({
    url: url(),
    namespace: 'service',
    pollIntervalSeconds,
    onError: () => {},
  });
  queues.push(q);
  return q;
}

const until = async (what: string, ok: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

beforeAll(async () => {
  await sql(
    testPg().adminUrl,
    `CREATE DATABASE ${quoteIdent(dbName)} TEMPLATE ${quoteIdent(testPg().workflowTemplate)}`,
  );
});

afterAll(async () => {
  for (const q of queues) await q.stop().catch(() => {});
  await sql(testPg().adminUrl, `DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
});

describe('the pg-boss queue', () => {
  it('stores each job as the table declares it: name, singleton key, retries, wait and priority', async () => {
    const q = queue();
    await q.enqueueMany('processDocument', [{ documentId: 'doc_a' }, { documentId: 'doc_b' }]);
    await q.enqueueMany('processDocument', [{ documentId: 'doc_c' }], { ahead: true });
    // Waiting already: a no-op.
    await q.enqueue('processDocument', { documentId: 'doc_a' }, { ahead: true });
    await q.enqueue('maintainWorkspace', { workspaceId: 'ws_1' });
    // An urgent maintenance waits beside the one scheduled for later, and starts at once.
    await q.enqueue('maintainWorkspace', { workspaceId: 'ws_1', urgent: true });
    await q.enqueue('maintainWorkspace', { workspaceId: 'ws_2' }, { delaySeconds: 60 });
    await q.enqueue('syncSource', { sourceId: 'src_1' });
    await q.enqueue('syncSource', { sourceId: 'src_1' });

    const rows = await sql(
      url(),
      `SELECT name, data, singleton_key AS key, priority, retry_limit AS retries,
              retry_delay AS delay, retry_backoff AS backoff,
              round(extract(epoch FROM start_after - created_on))::int AS wait
       FROM service.job ORDER BY name, singleton_key`,
    );
    const documentJob = { name: 'process-document', retries: 5, delay: 2, backoff: true, wait: 0 };
    const maintenance = { name: 'maintain-workspace', retries: 3, delay: 10, backoff: true };
    expect(rows).toEqual([
      { ...maintenance, data: { workspaceId: 'ws_1' }, key: 'ws_1', priority: 0, wait: 5 },
      {
        ...maintenance,
        data: { workspaceId: 'ws_1', urgent: true },
        key: 'ws_1:urgent',
        priority: 0,
        wait: 0,
      },
      { ...maintenance, data: { workspaceId: 'ws_2' }, key: 'ws_2', priority: 0, wait: 60 },
      { ...documentJob, data: { documentId: 'doc_a' }, key: 'doc_a', priority: 0 },
      { ...documentJob, data: { documentId: 'doc_b' }, key: 'doc_b', priority: 0 },
      { ...documentJob, data: { documentId: 'doc_c' }, key: 'doc_c', priority: 1 },
      {
        name: 'sync-source',
        data: { sourceId: 'src_1' },
        key: 'src_1',
        priority: 0,
        retries: 3,
        delay: 10,
        backoff: true,
        wait: 0,
      },
    ]);
    expect(await q.depth('processDocument')).toEqual({ queued: 3, active: 0 });
    expect(await q.depth('syncSource')).toEqual({ queued: 1, active: 0 });
    await sql(url(), 'DELETE FROM service.job');
  });

  it('hands a batched job its payloads together and any other job one payload at a time', async () => {
    const q = queue();
    await q.enqueueMany('processDocument', [
      { documentId: 'doc_a' },
      { documentId: 'doc_b' },
      { documentId: 'doc_c' },
    ]);
    await q.enqueue('syncSource', { sourceId: 'src_1' });
    await q.enqueue('syncSource', { sourceId: 'src_2' });
    await q.enqueue('maintainWorkspace', { workspaceId: 'ws_1', urgent: true });
    const batches: JobPayload<'processDocument'>[][] = [];
    const syncs: JobPayload<'syncSource'>[] = [];
    const maintenance: JobPayload<'maintainWorkspace'>[] = [];
    const handlers: JobHandlers = {
      processDocument: async (payloads) => {
        batches.push(payloads);
      },
      runEvaluation: async () => {},
      syncSource: async (payload) => {
        syncs.push(payload);
      },
      maintainWorkspace: async (payload) => {
        maintenance.push(payload);
      },
    };
    await q.startWorkers(handlers, { concurrency: 1, batchSize: 3 });
    await until('every job to be handled', () => batches.length + syncs.length + maintenance.length === 4);
    await q.stopWorkers();
    const byId = (a: { documentId: string }, b: { documentId: string }) =>
      a.documentId.localeCompare(b.documentId);
    expect(batches.map((batch) => [...batch].sort(byId))).toEqual([
      [{ documentId: 'doc_a' }, { documentId: 'doc_b' }, { documentId: 'doc_c' }],
    ]);
    expect([...syncs].sort((a, b) => a.sourceId.localeCompare(b.sourceId))).toEqual([
      { sourceId: 'src_1' },
      { sourceId: 'src_2' },
    ]);
    expect(maintenance).toEqual([{ workspaceId: 'ws_1', urgent: true }]);
  });

  it('wakes its own consumers for a job that may start now, instead of waiting for their next poll', async () => {
    const q = queue(60);
    const syncs: JobPayload<'syncSource'>[] = [];
    const handlers: JobHandlers = {
      processDocument: async () => {},
      runEvaluation: async () => {},
      syncSource: async (payload) => {
        syncs.push(payload);
      },
      maintainWorkspace: async () => {},
    };
    await q.startWorkers(handlers, { concurrency: 1, batchSize: 3 });
    // The consumers have looked once, found nothing, and sleep for a minute.
    await new Promise((r) => setTimeout(r, 1000));
    await q.enqueue('syncSource', { sourceId: 'src_now' });
    // Taken long before the consumers' next poll, a minute on (without the wake-up: not within 10 s).
    await until('the job to be handled', () => syncs.length === 1, 10_000);
    await q.stopWorkers();
  });
});
