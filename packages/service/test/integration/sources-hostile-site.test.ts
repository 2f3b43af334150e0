import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINKS_PER_PAGE } from '../../src/sources/pages.js';
import { client } from '../support/http.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Websites built to hurt a crawler (issue 26, findings 1, 2, 3 and 9), served on loopback to the real
 * service with its worker in the same process, as in embedded mode: a link farm, a sitemap and a
 * robots.txt made for catastrophic backtracking, and a sitemap of missing pages. Each sync must end
 * with the pages a sane crawler would find, while /health keeps answering.
 */

const requests = new Map<string, number>();
/** When each request to /missing/ came. */
const missingTimes: number[] = [];
let base: string;
let server: http.Server;

const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
/** 40 a's: under the robots rule below, a regular expression would backtrack for minutes on it. */
const AS = 'a'.repeat(40);
const FARM_LINKS = 20_000;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const site = url.pathname.split('/')[1] ?? '';
    requests.set(site, (requests.get(site) ?? 0) + 1);
    if (site === 'missing') missingTimes.push(performance.now());
    const send = (type: string, body: string, status = 200) =>
      res.writeHead(status, { 'content-type': type }).end(body);
    if (url.pathname === '/robots.txt') {
      // Twelve wildcards, as in the finding: `*` turned into `.*` backtracks exponentially on /a…a.
      return send('text/plain', `User-agent: *\nDisallow: /robots/${'*a'.repeat(12)}*b\n`);
    }
    if (url.pathname === '/sitemap/sitemap.xml') {
      // A proper entry, then `<loc>` and 40,000 spaces that never end: a lazy pattern between
      // `\s*` on both sides backtracks quadratically per start, and on every start.
      return send(
        'application/xml',
        `<?xml version="1.0"?><urlset><url><loc>${base}/sitemap/guide</loc></url><url><loc>${' '.repeat(40_000)}`,
      );
    }
    if (url.pathname === '/sitemap/guide')
      return send('text/html', html('Guide', '<p>The sitemap guide explains the blue widget.</p>'));
    if (url.pathname === '/robots/') {
      return send(
        'text/html',
        html('Robots', `<p>The start page.</p><a href="/robots/${AS}">a's</a><a href="/robots/${AS}b">b</a>`),
      );
    }
    if (url.pathname === `/robots/${AS}`)
      return send('text/html', html('Allowed', '<p>This page about the red widget is allowed.</p>'));
    if (url.pathname.startsWith('/farm/')) {
      // Every page of the farm links to 20,000 pages of the farm, and each of them again.
      const n = Number(url.pathname.slice('/farm/'.length)) || 0;
      const links = Array.from(
        { length: FARM_LINKS },
        (_, i) => `<a href="/farm/${n * FARM_LINKS + i + 1}">p</a>`,
      );
      return send('text/html', html(`Farm ${n}`, `<p>Farm page number ${n}.</p>${links.join('')}`));
    }
    if (url.pathname === '/missing/sitemap.xml') {
      const locs = Array.from({ length: 3000 }, (_, i) => `<url><loc>${base}/missing/p${i}</loc></url>`);
      return send('application/xml', `<urlset>${locs.join('')}</urlset>`);
    }
    send('text/plain', 'not found', 404);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a hostile website source', () => {
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let workspaceId: string;

  beforeAll(async () => {
    svc = await startTestService({ env: { URL_FETCH_ALLOW_HOSTS: '127.0.0.1/32' } });
    api = client(svc.url, await svc.key());
    workspaceId = (await api.post('/v1/workspaces', { name: 'hostile sites' })).body.id;
  });
  afterAll(() => svc?.close());

  /**
   * Syncs a new source while asking /health every 200 ms, each time with a 5 s deadline; answers the
   * finished run and how many health checks went unanswered.
   */
  const syncWhileProbing = async (settings: Record<string, unknown>) => {
    const created = await api.post(`/v1/workspaces/${workspaceId}/sources`, { type: 'website', settings });
    expect(created.status).toBe(201);
    const started = await api.post(`/v1/workspaces/${workspaceId}/sources/${created.body.id}/sync`, {});
    let probing = true;
    let unanswered = 0;
    let answered = 0;
    const probe = (async () => {
      while (probing) {
        try {
          const r = await fetch(`${svc.url}/health`, { signal: AbortSignal.timeout(5000) });
          if (((await r.json()) as { ok?: unknown }).ok === true) answered++;
          else unanswered++;
        } catch {
          unanswered++;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      const run = await api.waitForRun(started.body.run.id, 120_000);
      return { run, sourceId: created.body.id as string, unanswered, answered };
    } finally {
      probing = false;
      await probe;
    }
  };
  const documentsOf = async (sourceId: string) =>
    (
      (await api.get(`/v1/workspaces/${workspaceId}/documents`)).body.documents as {
        source: string;
        sourceItem: string;
        status: string;
      }[]
    ).filter((d) => d.source === sourceId);

  it('reads a sitemap whose <loc> never ends without freezing, and keeps its proper entries', async () => {
    const { run, sourceId, unanswered, answered } = await syncWhileProbing({
      sitemapUrl: `${base}/sitemap/sitemap.xml`,
      requestDelayMs: 0,
    });
    expect(run.error).toBeNull();
    expect(run).toMatchObject({ status: 'completed', counts: { ready: 1 } });
    expect((await documentsOf(sourceId)).map((d) => d.sourceItem)).toEqual([`${base}/sitemap/guide`]);
    expect(answered).toBeGreaterThan(0);
    expect(unanswered).toBe(0);
  });

  it('matches robots.txt wildcards without freezing, and still obeys them', async () => {
    const { run, sourceId, unanswered } = await syncWhileProbing({
      startUrl: `${base}/robots/`,
      requestDelayMs: 0,
    });
    expect(run.error).toBeNull();
    expect(run.status).toBe('completed');
    const items = (await documentsOf(sourceId)).map((d) => d.sourceItem).sort();
    // /robots/a…ab matches `/robots/*a…*b`: disallowed, never requested. /robots/a…a is allowed.
    expect(items).toEqual([`${base}/robots/`, `${base}/robots/${AS}`]);
    expect(unanswered).toBe(0);
  });

  it('crawls a link farm within its limits: links per page, requests, and links kept for the next sync', async () => {
    requests.set('farm', 0);
    const maxPages = 30;
    const { run, sourceId, unanswered } = await syncWhileProbing({
      startUrl: `${base}/farm/0`,
      maxPages,
      maxDepth: 2,
      requestDelayMs: 0,
    });
    expect(run.error).toBeNull();
    expect(run.status).toBe('completed');
    expect((await documentsOf(sourceId)).length).toBe(maxPages);
    // One request per page kept while listing, one more when its document fetches it.
    expect(requests.get('farm')).toBe(2 * maxPages);
    const c = new pg.Client({ connectionString: svc.dbs.urls.service });
    await c.connect();
    try {
      const kept = await c.query<{ item_key: string; n: number }>(
        'SELECT item_key, coalesce(jsonb_array_length(links), 0) AS n FROM source_items WHERE source_id = $1',
        [sourceId],
      );
      expect(kept.rows).toHaveLength(maxPages);
      // The start page (depth 0) and the pages it links to (depth 1) lead on: their first links,
      // capped; the crawl stopped at its page limit before any page of depth 2.
      for (const row of kept.rows) expect(row.n).toBeLessThanOrEqual(MAX_LINKS_PER_PAGE);
      expect(kept.rows.find((r) => r.item_key === `${base}/farm/0`)?.n).toBe(MAX_LINKS_PER_PAGE);
    } finally {
      await c.end();
    }
    expect(unanswered).toBe(0);
  });

  it('keeps no links of pages at the depth limit', async () => {
    const { run, sourceId } = await syncWhileProbing({
      startUrl: `${base}/farm/0`,
      maxPages: 3,
      maxDepth: 0,
      requestDelayMs: 0,
    });
    expect(run.status).toBe('completed');
    const c = new pg.Client({ connectionString: svc.dbs.urls.service });
    await c.connect();
    try {
      const kept = await c.query<{ n: number }>(
        'SELECT coalesce(jsonb_array_length(links), 0) AS n FROM source_items WHERE source_id = $1',
        [sourceId],
      );
      expect(kept.rows).toEqual([{ n: 0 }]);
    } finally {
      await c.end();
    }
  });

  it('limits the requests of one sync, not only the pages it keeps', async () => {
    requests.set('missing', 0);
    const { run } = await syncWhileProbing({
      sitemapUrl: `${base}/missing/sitemap.xml`,
      maxPages: 1,
      requestDelayMs: 0,
    });
    // 3,000 listed pages that all answer 404: the default budget is 2 × maxPages + 20 requests.
    expect(run.status).toBe('completed');
    expect(requests.get('missing')).toBeLessThanOrEqual(2 * 1 + 20);
    expect(requests.get('missing')).toBeGreaterThan(10);
  });

  it('paces its requests to one host', async () => {
    requests.set('missing', 0);
    missingTimes.length = 0;
    const { run } = await syncWhileProbing({
      sitemapUrl: `${base}/missing/sitemap.xml`,
      maxPages: 1,
      maxRequests: 6,
      requestDelayMs: 400,
    });
    expect(run.status).toBe('completed');
    // Six requests: robots.txt, the sitemap, four pages; each at least 400 ms after the one before
    // (a timer may fire a millisecond early).
    expect(requests.get('missing')).toBe(5);
    const gaps = missingTimes.slice(1).map((t, i) => t - missingTimes[i]!);
    expect(gaps).toHaveLength(4);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(395);
  });
});
