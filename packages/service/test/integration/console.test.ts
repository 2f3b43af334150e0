import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

const INDEX =
  '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/app-1a2b3c4d.js"></script></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

let consoleDir: string;
let svc: TestService;

/** A stand-in for packages/console/dist: the server's job is to serve whatever the build produced. */
async function fakeBuild(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docslurp-console-'));
  await mkdir(path.join(dir, 'assets'));
  await writeFile(path.join(dir, 'index.html'), INDEX);
  await writeFile(path.join(dir, 'assets', 'app-1a2b3c4d.js'), SCRIPT);
  await writeFile(path.join(dir, 'assets', 'app-1a2b3c4d.js.gz'), gzipSync(SCRIPT));
  return dir;
}

const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

beforeAll(async () => {
  consoleDir = await fakeBuild();
  svc = await startTestService({ env: { CONSOLE_DIR: consoleDir }, worker: false });
});
afterAll(async () => {
  await svc?.close();
  await rm(consoleDir, { recursive: true, force: true });
});

describe('serving the web console', () => {
  it('answers the page at / and at every console URL, with a strict CSP and no caching', async () => {
    for (const p of ['/', '/workspaces/ws_abc/search?q=x', '/documents/doc_1', '/keys']) {
      const r = await fetch(svc.url + p, { headers: html });
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await r.text()).toBe(INDEX);
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('serves hashed assets for a year, compressed when the browser accepts it', async () => {
    const plain = await fetch(`${svc.url}/assets/app-1a2b3c4d.js`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/javascript/);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await plain.text()).toBe(SCRIPT);
    const zipped = await fetch(`${svc.url}/assets/app-1a2b3c4d.js`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(Number(zipped.headers.get('content-length'))).toBeLessThan(SCRIPT.length / 5);
    expect(await zipped.text()).toBe(SCRIPT); // fetch decodes it
  });

  it('keeps the API, the operational endpoints and unknown files as they were', async () => {
    const unknownApi = await fetch(`${svc.url}/v1/nothing-here`, { headers: html });
    expect(unknownApi.status).toBe(404);
    expect(((await unknownApi.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    expect(await (await fetch(`${svc.url}/health`, { headers: html })).json()).toEqual({ ok: true });
    const openapi = await fetch(`${svc.url}/openapi.json`, { headers: html });
    expect(openapi.headers.get('content-type')).toMatch(/application\/json/);
    // Only browsers asking for a page get one: API clients get the JSON 404, as do other methods.
    const asJson = await fetch(`${svc.url}/workspaces`, { headers: { accept: 'application/json' } });
    expect([asJson.status, ((await asJson.json()) as { error: { code: string } }).error.code]).toEqual([
      404,
      'route_not_found',
    ]);
    const post = await fetch(`${svc.url}/workspaces`, { method: 'POST', headers: html });
    expect(post.status).toBe(404);
    expect(post.headers.get('content-type')).toMatch(/application\/json/);
    const missingAsset = await fetch(`${svc.url}/assets/gone-00000000.js`, { headers: { accept: '*/*' } });
    expect(missingAsset.status).toBe(404);
    expect((await fetch(`${svc.url}/v1/workspaces`, { headers: html })).status).toBe(401);
  });

  it('runs without the console when it has not been built', async () => {
    const { buildApp } = await import('../../src/app.js');
    const empty = await mkdtemp(path.join(os.tmpdir(), 'docslurp-no-console-'));
    const app = await buildApp({
      ...svc.deps,
      config: { ...svc.config, console: { ...svc.config.console, assetsDir: empty } },
    });
    try {
      const r = await app.inject({ method: 'GET', url: '/', headers: html });
      expect(r.statusCode).toBe(404);
      expect(r.json().error.code).toBe('route_not_found');
      expect((await app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ ok: true });
    } finally {
      await app.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('the overview for the console', () => {
  it('lists the runs in progress with how many of their documents are done', async () => {
    const api = client(svc.url, await svc.key());
    // No worker runs in this file, so the run stays in progress.
    const up = await api.upload([
      { name: 'a.txt', content: 'First file.' },
      { name: 'b.txt', content: 'Second file.' },
    ]);
    expect(up.status).toBe(202);
    const o = await api.get('/v1/overview');
    expect(o.body.runsProcessing).toBe(1);
    expect(o.body.activeRuns).toEqual([
      {
        id: up.body.run.id,
        workspaceId: up.body.workspace.id,
        status: 'processing',
        kind: 'upload',
        sourceName: null,
        createdAt: up.body.run.createdAt,
        documents: 2,
        finished: 0,
      },
    ]);
    expect((await api.post(`/v1/runs/${up.body.run.id}/pause`)).status).toBe(200);
    expect((await api.get('/v1/overview')).body.activeRuns[0].status).toBe('paused');
    expect((await api.post(`/v1/runs/${up.body.run.id}/cancel`)).status).toBe(200);
    expect((await api.get('/v1/overview')).body.activeRuns).toEqual([]);
    const other = client(svc.url, await svc.key(['artifacts'], 'someone-else'));
    expect((await other.get('/v1/overview')).body.activeRuns).toEqual([]);
  });
});
