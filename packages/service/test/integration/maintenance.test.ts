import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LanceSearchIndex } from '../../src/adapters/index/lancedb.js';
import { createPool, quoteIdent } from '../../src/adapters/postgres/db.js';
import { PgLeaseRepository } from '../../src/adapters/postgres/leases.js';
import { PgWorkRepository } from '../../src/adapters/postgres/work.js';
import { PgBossQueue } from '../../src/adapters/queue/pgboss.js';
import type { JobHandlers } from '../../src/domain/jobs.js';
import { silentLog } from '../../src/domain/log.js';
import type { IndexRow } from '../../src/domain/ports.js';
import { maintenanceHandler } from '../../src/processing/maintenance.js';

/**
 * Index maintenance runs once at a time per workspace, however many workers take maintenance jobs,
 * and its clean-up never removes files that no version refers to yet.
 */
const dbName = `mt_${randomBytes(5).toString('hex')}`;
const serviceDb = `${dbName}_service`;
const testPg = () => inject('testPg');
const queues: PgBossQueue[] = [];

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: testPg().adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

function serviceUrl(): string {
  const u = new URL(testPg().adminUrl);
  u.pathname = `/${serviceDb}`;
  return u.toString();
}

function queue(): PgBossQueue {
  const u = new URL(testPg().adminUrl);
  u.pathname = `/${dbName}`;
  const q = new PgBossQueue({
    url: u.toString(),
    namespace: 'service',
    pollIntervalSeconds: 0.5,
    onError: () => {},
  });
  queues.push(q);
  return q;
}

beforeAll(async () => {
  await admin(`CREATE DATABASE ${quoteIdent(dbName)} TEMPLATE ${quoteIdent(testPg().workflowTemplate)}`);
  await admin(`CREATE DATABASE ${quoteIdent(serviceDb)} TEMPLATE ${quoteIdent(testPg().serviceTemplate)}`);
});

afterAll(async () => {
  for (const q of queues) await q.stop().catch(() => {});
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(serviceDb)} WITH (FORCE)`);
});

const until = async (what: string, ok: () => boolean, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('index maintenance jobs', () => {
  it('run one at a time per workspace across workers; the one sent meanwhile runs after', async () => {
    const pool = createPool(serviceUrl(), 4, 'maintenance-test');
    const leases = new PgLeaseRepository(pool);
    const work = new PgWorkRepository(pool);
    const running = new Map<string, number>();
    let most = 0;
    const done: string[] = [];
    const gates: (() => void)[] = [];
    // An optimisation that takes as long as the test says.
    const index = {
      optimize: async (workspaceId: string) => {
        const n = (running.get(workspaceId) ?? 0) + 1;
        running.set(workspaceId, n);
        most = Math.max(most, n);
        await new Promise<void>((resolve) => gates.push(resolve));
        running.set(workspaceId, (running.get(workspaceId) ?? 1) - 1);
        done.push(workspaceId);
        return { oldVersions: 0, keptSeconds: 60 };
      },
    };
    // Three workers, each with its maintenance consumer.
    const workers = [queue(), queue(), queue()];
    for (const [i, q] of workers.entries()) {
      const deps = { leases, index, jobs: q, work, log: silentLog, leaseSeconds: 60, busyRetrySeconds: 1 };
      const handlers: JobHandlers = {
        processDocument: async () => {},
        syncSource: async () => {},
        runEvaluation: async () => {},
        maintainWorkspace: maintenanceHandler(deps, `wrk_${i}`),
      };
      await q.startWorkers(handlers, { concurrency: 1, batchSize: 1 });
    }
    const [a, b, c] = workers as [PgBossQueue, PgBossQueue, PgBossQueue];

    await a.enqueue('maintainWorkspace', { workspaceId: 'ws_one' }, { delaySeconds: 0 });
    await until('the first maintenance to start', () => gates.length === 1);
    // Writes that came after it started ask for another pass (the job engine keeps one waiting).
    await b.enqueue('maintainWorkspace', { workspaceId: 'ws_one' }, { delaySeconds: 0 });
    // Another workspace is not held up by it.
    await c.enqueue('maintainWorkspace', { workspaceId: 'ws_two' }, { delaySeconds: 0 });
    await until('the other workspace to start', () => gates.length === 2);
    // The consumers take ws_one's second job meanwhile (every 2 s) and find it busy: none runs it.
    await new Promise((r) => setTimeout(r, 6000));
    expect(gates.length).toBe(2);
    expect(running.get('ws_one')).toBe(1);

    gates.shift()!();
    gates.shift()!();
    await until('the waiting pass to start', () => gates.length === 1, 30_000);
    gates.shift()!();
    await until('all three to finish', () => done.length === 3);
    expect(done.sort()).toEqual(['ws_one', 'ws_one', 'ws_two']);
    expect(most).toBe(1);
    for (const q of workers) await q.stopWorkers();
    await pool.end();
  });
});

describe('a worker that dies while it maintains a workspace', () => {
  it('holds the workspace only for its lease (DOCUMENT_LEASE_SECONDS)', async () => {
    const pool = createPool(serviceUrl(), 2, 'maintenance-test');
    const leases = new PgLeaseRepository(pool);
    const work = new PgWorkRepository(pool);
    const optimized: string[] = [];
    const sent: unknown[] = [];
    const deps = (
      optimize: () => Promise<void>,
      leaseStore: Pick<PgLeaseRepository, 'acquire' | 'release'>,
    ) => ({
      leases: leaseStore,
      index: {
        optimize: async (workspaceId: string) => {
          await optimize();
          optimized.push(workspaceId);
          return { oldVersions: 0, keptSeconds: 60 };
        },
      },
      jobs: { enqueue: async (...job: unknown[]) => void sent.push(job) },
      work,
      log: silentLog,
      leaseSeconds: 2,
    });
    // A worker takes the workspace's maintenance and dies in it: its lease is never renewed (the
    // store forgets every acquire after the first) nor released (its optimisation never ends).
    let taken = false;
    const dying = {
      acquire: async (name: string, holder: string, seconds: number) => {
        if (taken) return true;
        taken = true;
        return leases.acquire(name, holder, seconds);
      },
      release: async () => {},
    };
    void maintenanceHandler(
      deps(() => new Promise(() => {}), dying),
      'wrk_killed',
    )({ workspaceId: 'ws_dead' });
    const alive = maintenanceHandler(
      deps(async () => {}, leases),
      'wrk_alive',
    );
    await new Promise((r) => setTimeout(r, 300));
    await alive({ workspaceId: 'ws_dead' });
    expect(optimized).toEqual([]);
    expect(sent).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 2200));
    await alive({ workspaceId: 'ws_dead' });
    expect(optimized).toEqual(['ws_dead']);
    await pool.end();
  });
});

describe('index clean-up', () => {
  it('removes replaced versions but never a file that no version refers to yet', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-maint-'));
    try {
      const index = new LanceSearchIndex(dir, {}, { oldVersionsKeptSeconds: 0 });
      const row = (i: number): IndexRow => ({
        id: `chk_${i}`,
        documentId: `doc_${i}`,
        ordinal: 0,
        text: `row ${i}`,
        headingPath: [],
        heading: '',
        filename: `f${i}.md`,
        sourceUrl: null,
        mediaType: 'text/markdown',
        pageStart: null,
        pageEnd: null,
        charStart: 0,
        charEnd: 5,
        wordCodes: new Uint32Array(),
      });
      for (let i = 0; i < 3; i++)
        await index.replaceDocuments('ws', [{ documentId: `doc_${i}`, rows: [row(i)] }]);
      const table = (await readdir(dir)).find((n) => n.endsWith('.lance'))!;
      const data = path.join(dir, table, 'data');
      // What a commit in progress in another process has written so far: a data file that no
      // version refers to yet, here an hour old (older than the retention of replaced versions).
      const pending = path.join(data, `${randomBytes(8).toString('hex')}.lance`);
      await writeFile(pending, randomBytes(64));
      const hourAgo = new Date(Date.now() - 3600_000);
      await utimes(pending, hourAgo, hourAgo);

      const beforeNames = await readdir(path.join(dir, table, '_versions'));
      const before = beforeNames.length;
      await new Promise((r) => setTimeout(r, 20));
      await index.optimize('ws');
      const after = await readdir(path.join(dir, table, '_versions'));
      expect(before).toBeGreaterThan(3);
      // Every version there was before is gone (the optimisation's own new ones remain).
      for (const name of beforeNames.filter((n) => n.endsWith('.manifest')))
        expect(after).not.toContain(name);
      expect(await readdir(data)).toContain(path.basename(pending));
      expect(await index.countRows('ws')).toBe(3);
      await index.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
