import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import { buildWorkerApp } from '../../src/http/worker-app.js';
import { createLogger } from '../../src/logger.js';
import { client } from '../support/http.js';
import { rawRequest } from '../support/raw-http.js';
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

describe('operational endpoints spelled another way', () => {
  const secret = 'metrics-secret-for-tests';
  const port = (url: string) => Number(new URL(url).port);
  /** One GET exactly as written on the request line: no client library normalises it on the way. */
  const get = (p: number, target: string) =>
    rawRequest(
      p,
      `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\nAccept: text/html\r\nConnection: close\r\n\r\n`,
    );
  // Each of these is what a reverse proxy's exact-path block on /ready or /metrics might not take for
  // that path. The first ones are what the router itself decodes or strips to reach the endpoint (the
  // bypass); the others it already refused, kept here so that no router option brings them back.
  const spellings = [
    '/re%61dy',
    '/%72eady',
    '/%72%65%61%64%79',
    '/met%72ics',
    '/%6detrics',
    '/%68ealth',
    '/openapi%2Ejson',
    '/ready#x',
    '/metrics#',
    'http://127.0.0.1/ready',
    'http://127.0.0.1/metrics',
    '/re%61dy?x=1',
    '//ready',
    '/ready/',
    '/./ready',
    '/x/../ready',
    '/%2e/ready',
    '/READY',
    '/Metrics',
    '/ready;x',
  ];

  it('answers only the exact paths on the server’s port, over a real socket', async () => {
    const p = port(svc.url);
    for (const target of spellings) {
      const r = await get(p, target);
      expect(r.status, target).toBe(404);
      // The service's own answer to an unknown path, never the endpoint's (nor the console's page).
      expect(r.headers['content-type'], target).toMatch(/^application\/json/);
      expect(JSON.parse(r.body).error.code, target).toBe('route_not_found');
    }
    for (const target of ['/health', '/ready', '/ready?verbose=1', '/metrics', '/openapi.json']) {
      expect((await get(p, target)).status, target).toBe(200);
    }
    expect((await get(p, '/metrics')).body).toMatch(/^docslurp_http_request_duration_seconds/m);
  });

  it('answers only the exact paths on a worker’s port too', async () => {
    const app = await buildWorkerApp({ ...svc.deps, readinessChecks: svc.deps.workerReadinessChecks }, 64);
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const p = (app.server.address() as AddressInfo).port;
      for (const target of spellings.filter((t) => !t.includes('openapi'))) {
        const r = await get(p, target);
        expect([r.status, JSON.parse(r.body).error.code], target).toEqual([404, 'route_not_found']);
      }
      expect((await get(p, '/health')).status).toBe(200);
      expect((await get(p, '/metrics')).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('/openapi.json', () => {
  it('names the origin it was reached at, whatever the Host, from one document built once', async () => {
    const port = Number(new URL(svc.url).port);
    const get = async (host: string) =>
      JSON.parse(
        (await rawRequest(port, `GET /openapi.json HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`))
          .body,
      ) as { servers: { url: string }[]; paths: Record<string, unknown> };
    const a = await get('a.example:8080');
    const b = await get('b.example');
    expect(a.servers.map((s) => s.url)).toEqual(['http://a.example:8080']);
    expect(b.servers.map((s) => s.url)).toEqual(['http://b.example']);
    expect(a.paths).toEqual(b.paths);
    expect(Object.keys(a.paths)).toContain('/v1/search');
  });
});
