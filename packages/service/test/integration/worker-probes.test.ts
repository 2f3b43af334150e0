import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { quoteIdent } from '../../src/adapters/postgres/db.js';
import { packageRoot } from '../../src/paths.js';
import { client } from '../support/http.js';
import {
  baseEnv,
  freePort,
  type RunningProcess,
  runCli,
  startCli,
  waitForHealth,
} from '../support/processes.js';
import { startS3Server, type TestS3 } from '../support/s3.js';

/** A worker's own port (WORKER_HTTP_PORT): /health, /ready and /metrics, as Kubernetes probes them. */
const dbName = `wp_${randomBytes(5).toString('hex')}`;
const adminUrl = () => inject('testPg').adminUrl;
const processes: RunningProcess[] = [];
const bootstrapKey = `dsk_${randomBytes(20).toString('hex')}`;
const metricsSecret = randomBytes(12).toString('hex');
let s3: TestS3;
let env: Record<string, string>;
let serverUrl: string;
let workerUrl: string;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** One sample's value from the text exposition format. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

beforeAll(async () => {
  s3 = await startS3Server();
  await admin(`CREATE DATABASE ${quoteIdent(dbName)}`);
  const db = new URL(adminUrl());
  db.pathname = `/${dbName}`;
  const [serverPort, workerPort] = [await freePort(), await freePort()];
  serverUrl = `http://127.0.0.1:${serverPort}`;
  workerUrl = `http://127.0.0.1:${workerPort}`;
  env = {
    ...baseEnv(),
    ...s3.env,
    NODE_ENV: 'production',
    WORKFLOW_NAMESPACE: 'service',
    DATABASE_URL: db.toString(),
    SERVER_BIND_ADDRESS: '127.0.0.1',
    SERVER_PORT: String(serverPort),
    WORKER_HTTP_PORT: String(workerPort),
    METRICS_SECRET: metricsSecret,
    SERVICE_BOOTSTRAP_API_KEY: bootstrapKey,
    LOG_LEVEL: 'info',
  };
  const migrated = await runCli(['migrate'], env);
  expect(migrated.code, migrated.output).toBe(0);
});

afterAll(async () => {
  for (const p of processes) await p.stop();
  await s3?.close();
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
  await admin(`DROP DATABASE IF EXISTS ${quoteIdent(`${dbName}_workflow`)} WITH (FORCE)`);
});

describe('the worker probes', () => {
  it('answer /health and /ready with the worker’s own dependencies', async () => {
    const worker = startCli('worker', ['worker'], env);
    const server = startCli('server', ['server'], env);
    processes.push(worker, server);
    await worker.waitFor(/worker probes listening/, 30_000);
    await worker.waitFor(/"msg":"worker started"/, 30_000);
    const health = await client(workerUrl).get('/health');
    expect(health).toMatchObject({ status: 200, body: { ok: true } });
    const ready = await client(workerUrl).get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(Object.keys(ready.body.checks).sort()).toEqual([
      'conditionalWrites',
      'database',
      'jobEngine',
      'objectStore',
      'parserSandbox',
      'searchIndex',
    ]);
    // The worker serves nothing else.
    const api = await client(workerUrl, bootstrapKey).get('/v1/workspaces');
    expect(api.status).toBe(404);
    expect(api.body.error.code).toBe('route_not_found');
  });

  it('report batches, commits, the queue and the webhook backlog on /metrics, behind the secret', async () => {
    await waitForHealth(serverUrl);
    const up = await client(serverUrl, bootstrapKey).upload(
      Array.from({ length: 6 }, (_, i) => ({
        name: `m${i}.md`,
        content: `# M${i}\n\nMetric word m${i}q.\n`,
      })),
    );
    await client(serverUrl, bootstrapKey).waitForRun(up.body.run.id, 60_000);

    expect((await fetch(`${workerUrl}/metrics`)).status).toBe(401);
    const r = await fetch(`${workerUrl}/metrics`, { headers: { authorization: `Bearer ${metricsSecret}` } });
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(sample(text, 'docslurp_batches_claimed_total')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'docslurp_batches_in_progress')).toBe(0);
    expect(sample(text, 'docslurp_batch_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'docslurp_index_commit_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'docslurp_index_commit_retries_total')).toBe(0);
    expect(text).toMatch(/^docslurp_queue_depth\{state="queued"\} \d+$/m);
    expect(text).toMatch(/^docslurp_webhook_deliveries\{state="pending"\} 0$/m);
    expect(text).toMatch(/^docslurp_documents_processed_total\{status="ready"\} 6$/m);
  });

  it('the Helm chart’s KEDA query counts unfinished documents on this schema', async () => {
    const template = readFileSync(
      path.join(packageRoot(), '..', '..', 'deploy', 'helm', 'docslurp', 'templates', 'worker.yaml'),
      'utf8',
    );
    const query = /query: >-\n((?:\s{10}.+\n)+)/.exec(template)![1]!.replace(/\s+/g, ' ').trim();
    const count = async () => {
      const c = new pg.Client({ connectionString: env.DATABASE_URL });
      await c.connect();
      try {
        return Number((await c.query<{ count: string }>(query)).rows[0]!.count);
      } finally {
        await c.end();
      }
    };
    expect(await count()).toBe(0);
    // A run that no worker can finish now: the workers were stopped.
    for (const p of processes.filter((x) => x.name === 'worker')) await p.stop();
    const up = await client(serverUrl, bootstrapKey).upload([
      { name: 'a.md', content: '# A\n\nOne.' },
      { name: 'b.md', content: '# B\n\nTwo.' },
    ]);
    expect(up.status).toBe(202);
    expect(await count()).toBe(2);
  });
});
