import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import { createLogger } from '../../src/logger.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ env: { METRICS_SECRET: 'metrics-secret-for-tests' } });
});
afterAll(() => svc?.close());

describe('/health and /ready', () => {
  it('/health says ok while the process is up', async () => {
    const r = await client(svc.url).get('/health');
    expect([r.status, r.body]).toEqual([200, { ok: true }]);
  });

  it('/ready checks every dependency and reports latencies and the schema version', async () => {
    const r = await client(svc.url).get('/ready');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ready');
    expect(r.body.schemaVersion).toBeGreaterThanOrEqual(1);
    expect(Object.keys(r.body.checks).sort()).toEqual([
      'cache',
      'database',
      'jobEngine',
      'objectStore',
      'searchIndex',
    ]);
    for (const c of Object.values(r.body.checks) as { ok: boolean; latencyMs: number }[]) {
      expect(c.ok).toBe(true);
      expect(typeof c.latencyMs).toBe('number');
    }
  });

  it('/ready answers 503 with the error when the database is unreachable', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-ready-'));
    // Port 9 (discard) on loopback: nothing listens, connections are refused at once.
    const dead = 'postgres://postgres@127.0.0.1:9/nothing';
    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: dead, LOG_LEVEL: 'silent' });
    const deps = await createDeps(config, createLogger('silent'), { service: dead, workflow: dead });
    const app = await buildApp(deps);
    try {
      const r = await app.inject({ method: 'GET', url: '/ready' });
      expect(r.statusCode).toBe(503);
      const body = r.json();
      expect(body.status).toBe('unavailable');
      expect(body.checks.database).toMatchObject({ ok: false, critical: true });
      expect(body.checks.database.error).toMatch(/ECONNREFUSED|connect/);
      expect(body.checks.objectStore.ok).toBe(true);
      expect(body.schemaVersion).toBeUndefined();
    } finally {
      await app.close();
      await deps.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('/ready redacts details for public callers on a hosted platform', async () => {
    const config = { ...svc.config, hostedPlatformAppName: 'my-app' };
    const app = await buildApp({ ...svc.deps, config });
    try {
      const publicCall = await app.inject({ method: 'GET', url: '/ready', remoteAddress: '203.0.113.7' });
      expect(publicCall.statusCode).toBe(200);
      const body = publicCall.json();
      expect(body.status).toBe('ready');
      expect(body.schemaVersion).toBeUndefined();
      expect(body.checks.database).toEqual({ ok: true });
      const withSecret = await app.inject({
        method: 'GET',
        url: '/ready',
        remoteAddress: '203.0.113.7',
        headers: { authorization: 'Bearer metrics-secret-for-tests' },
      });
      expect(withSecret.json().checks.database.latencyMs).toBeTypeOf('number');
      const local = await app.inject({ method: 'GET', url: '/ready', remoteAddress: '127.0.0.1' });
      expect(local.json().schemaVersion).toBeGreaterThanOrEqual(1);
    } finally {
      await app.close();
    }
  });
});

describe('/metrics', () => {
  it('needs the metrics secret: 401 when wrong or missing', async () => {
    expect((await client(svc.url).get('/metrics')).status).toBe(401);
    const wrong = await client(svc.url, 'not-the-secret').get('/metrics');
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_metrics_secret']);
  });

  it('is not there at all (404) when METRICS_SECRET is unset', async () => {
    const app = await buildApp({ ...svc.deps, config: { ...svc.config, metricsSecret: undefined } });
    try {
      const r = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer anything' },
      });
      expect(r.statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('exposes request durations, documents and runs by state, queue depth and stage durations', async () => {
    const api = client(svc.url, await svc.key());
    const up = await api.upload([{ name: 'm.md', content: '# Metrics\n\nCounting documents.' }]);
    await api.waitForRun(up.body.run.id);
    const r = await client(svc.url, 'metrics-secret-for-tests').get('/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = r.body as string;
    expect(text).toMatch(
      /docslurp_http_request_duration_seconds_count\{method="POST",route="\/v1\/ingest\/bulk",status="202"\} 1/,
    );
    expect(text).toMatch(/docslurp_documents\{state="ready"\} 1/);
    expect(text).toMatch(/docslurp_runs\{state="completed"\} 1/);
    expect(text).toMatch(/docslurp_queue_depth\{state="queued"\} \d+/);
    // The document was indexed by this process: its workspace's index is open and cached.
    expect(Number(/^docslurp_search_index_cache_bytes (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(text).toMatch(/docslurp_document_stage_duration_seconds_count\{stage="parsing"\} 1/);
    expect(text).toMatch(/docslurp_document_stage_duration_seconds_count\{stage="indexing"\} 1/);
    // One document, so one parser process was started for it.
    expect(text).toMatch(/^docslurp_parser_processes_started_total 1$/m);
  });
});
