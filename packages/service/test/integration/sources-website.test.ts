import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/** A small documentation site whose pages the test edits between syncs. */
const pages = new Map<string, string>();
const requests: string[] = [];
let base: string;
let server: http.Server;
/** Another loopback address, outside URL_FETCH_ALLOW_HOSTS: what an internal service looks like here. */
let internal: http.Server;
let internalBase: string;
const internalRequests: string[] = [];

const page = (title: string, body: string, links: string[] = [], canonical?: string) =>
  `<!doctype html><html><head><title>${title}</title>${canonical ? `<link rel="canonical" href="${canonical}">` : ''}</head>` +
  `<body><main><h1>${title}</h1><p>${body}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push(url);
    if (url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /docs/private\n');
      return;
    }
    if (url === '/sitemap.xml') {
      const locs = ['/docs/', '/docs/install', '/docs/private/keys', '/docs/install?ref=nav', '/blog/news']
        .map((p) => `<url><loc>${base}${p}</loc></url>`)
        .join('');
      res.writeHead(200, { 'content-type': 'application/xml' });
      // A private address in the sitemap: the guard must refuse it, whatever the prefix says.
      res.end(
        `<?xml version="1.0"?><urlset>${locs}<url><loc>${internalBase}/docs/secret</loc></url></urlset>`,
      );
      return;
    }
    const html = pages.get(url);
    if (!html) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const etag = `"${createHash('sha1').update(html).digest('hex').slice(0, 12)}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  internal = http.createServer((req, res) => {
    internalRequests.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/html' }).end(page('Secret', 'Internal only.'));
  });
  await new Promise<void>((r) => internal.listen(0, '127.0.0.2', r));
  internalBase = `http://127.0.0.2:${(internal.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await new Promise<void>((r) => internal.close(() => r()));
});

describe('a website source', () => {
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let workspaceId: string;

  type Doc = { id: string; sourceItem: string; version: number; status: string; sourceUrl: string };
  const docs = async () =>
    new Map(
      ((await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as Doc[]).map((d) => [
        d.sourceItem.replace(base, ''),
        d,
      ]),
    );
  const sync = async (sourceId: string) => {
    const r = await api.post(`/v1/workspaces/${workspaceId}/sources/${sourceId}/sync`, {});
    return api.waitForRun(r.body.run.id);
  };

  beforeAll(async () => {
    svc = await startTestService({ env: { URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32' } });
    api = client(svc.url, await svc.key());
    workspaceId = (await api.post('/v1/workspaces', { name: 'site sync' })).body.id;
  });
  afterAll(() => svc?.close());

  it('crawls from a sitemap under the prefix, obeys robots.txt, refuses private addresses, de-duplicates canonical URLs', async () => {
    pages.set('/docs/', page('Docs home', 'Welcome to the widget documentation.', ['/docs/faq']));
    pages.set(
      '/docs/install',
      page('Install', 'Install the widget with the package manager.', [], `${base}/docs/install`),
    );
    pages.set(
      '/docs/install?ref=nav',
      page('Install', 'Install the widget with the package manager.', [], `${base}/docs/install`),
    );
    pages.set('/docs/faq', page('FAQ', 'The widget runs on any toaster.'));
    pages.set('/docs/private/keys', page('Keys', 'The master key is hunter2.'));
    pages.set('/blog/news', page('News', 'Outside the prefix.'));
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'website',
      settings: { sitemapUrl: `${base}/sitemap.xml`, urlPrefix: 'http://', maxDepth: 1 },
    });
    expect(created.status).toBe(201);
    const sourceId = created.body.id as string;
    // The prefix "http://" lets everything through but the guard and robots.txt.
    const first = await sync(sourceId);
    expect(first.failures).toEqual([]);
    expect(first.status).toBe('completed');
    const now = await docs();
    expect([...now.keys()].sort()).toEqual(['/blog/news', '/docs/', '/docs/faq', '/docs/install']);
    expect(now.get('/docs/install')!.sourceUrl).toBe(`${base}/docs/install`);
    expect(requests).not.toContain('/docs/private/keys');
    expect(internalRequests).toEqual([]);

    // With the origin as prefix, the blog goes (1 of 4: within the deletion limit).
    const narrowed = await api.patch(`/v1/workspaces/${workspaceId}/sources/${sourceId}`, {
      settings: { sitemapUrl: `${base}/sitemap.xml`, urlPrefix: `${base}/docs/`, maxDepth: 1 },
    });
    expect(narrowed.status).toBe(200);
    const second = await sync(sourceId);
    // Nothing to process; the blog page deleted, and counted so.
    expect(second.counts).toMatchObject({ total: 1, deleted: 1 });
    expect([...(await docs()).keys()].sort()).toEqual(['/docs/', '/docs/faq', '/docs/install']);
  });

  it('re-processes changed pages, skips unchanged ones (304 or same content) and deletes gone ones', async () => {
    const sources = (await api.get(`/v1/workspaces/${workspaceId}/sources`)).body.sources;
    const sourceId = sources[0].id as string;
    const before = await docs();
    pages.set('/docs/faq', page('FAQ', 'The widget runs on any kettle.'));
    pages.delete('/docs/install');
    pages.delete('/docs/install?ref=nav');
    requests.length = 0;
    const third = await sync(sourceId);
    expect(third.status).toBe('completed');
    expect(third.counts).toMatchObject({ total: 2, ready: 1, deleted: 1 });
    const now = await docs();
    expect([...now.keys()].sort()).toEqual(['/docs/', '/docs/faq']);
    expect(now.get('/docs/faq')).toMatchObject({ id: before.get('/docs/faq')!.id, version: 2 });
    expect(now.get('/docs/')).toMatchObject({ id: before.get('/docs/')!.id, version: 1 });
    const hits = (await api.post('/v1/search', { workspaceId, q: 'what does the widget run on' })).body
      .results;
    expect(hits[0].text).toContain('kettle');
    expect(hits[0].citation.sourceUrl).toBe(`${base}/docs/faq`);
  });

  it('fails the run when the start page cannot be reached', async () => {
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, {
      type: 'website',
      settings: { startUrl: 'http://127.0.0.1:1/' },
    });
    const failed = await sync(created.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('source_unreachable');
  });
});
