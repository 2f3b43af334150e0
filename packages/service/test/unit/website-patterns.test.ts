import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AllowList } from '../../src/adapters/web/address-policy.js';
import { GuardedFetcher } from '../../src/adapters/web/fetcher.js';
import { AddressGuard } from '../../src/adapters/web/guard.js';
import type { SourceAccess } from '../../src/sources/model.js';
import { WebsiteConnector } from '../../src/sources/website.js';

/**
 * What a crawl spends on a source's include and exclude patterns when the site and the patterns are
 * built to make it expensive (issue 44, finding 4): the website connector over the real URL fetcher,
 * against a site on loopback.
 */

/** A path part of 2,000 a's: every position of the patterns below stays live along it. */
const LONG = 'a'.repeat(2000);
/**
 * 50 patterns of the whole path (they hold a `/`) of about 38 characters, nearly the most characters
 * a list may hold: `**a` twelve times keeps each of a pattern's positions live along a run of a's.
 * The first 49 end in a `b` no path has, so each is walked to the end; the last excludes every path
 * with twelve a's. (Settings over the limits would fail the listing.)
 */
const COSTLY = [...Array.from({ length: 49 }, () => `/${'**a'.repeat(12)}b`), `/${'**a'.repeat(12)}**`];
/** Entries of 2 KB in each sitemap of the index: 6 MiB, more than a sitemap is read. */
const SITEMAP_ENTRIES = 3000;

const requests: string[] = [];
let base: string;
let server: http.Server;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const send = (type: string, body: string) => res.writeHead(200, { 'content-type': type }).end(body);
    if (path === '/farm/') {
      // A page of 400 KB whose 20,000 links are each 2 KB long, through its base.
      const links = Array.from({ length: 20_000 }, (_, i) => `<a href="${i}">p</a>`).join('');
      return send('text/html', `<html><head><base href="/farm/${LONG}/"></head><body>${links}</body></html>`);
    }
    if (path === '/index.xml') {
      const children = ['1', '2', '3'].map((n) => `<sitemap><loc>${base}/big/${n}.xml</loc></sitemap>`);
      return send('application/xml', `<sitemapindex>${children.join('')}</sitemapindex>`);
    }
    if (path.startsWith('/big/') && path.endsWith('.xml')) {
      const n = path.slice('/big/'.length, -'.xml'.length);
      const locs = Array.from(
        { length: SITEMAP_ENTRIES },
        (_, i) => `<url><loc>${base}/big/${LONG}/${n}-${i}</loc></url>`,
      );
      return send('application/xml', `<urlset>${locs.join('')}</urlset>`);
    }
    if (path.startsWith('/big/')) return send('text/html', '<html><body><p>A page.</p></body></html>');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const connector = () =>
  new WebsiteConnector(
    new GuardedFetcher({
      guard: new AddressGuard(new AllowList(['127.0.0.1/32'])),
      maxBytes: 16 * 2 ** 20,
      timeoutMs: 30_000,
      maxRedirects: 2,
      userAgent: 'test',
    }),
    { maxPageBytes: 16 * 2 ** 20 },
  );
const access = (settings: Record<string, unknown>): SourceAccess => ({
  id: 'src_t',
  type: 'website',
  settings: { requestDelayMs: 0, ...settings },
  credentials: undefined,
  roots: [],
});

/** The listing and how long it took. */
async function timedList(settings: Record<string, unknown>) {
  const started = performance.now();
  const items = await connector().list(access(settings), new Map(), new AbortController().signal);
  return { items, ms: performance.now() - started };
}

describe('include and exclude patterns in a crawl', () => {
  it('match a page’s links in one walk each: 500 links of 2 KB against 50 costly patterns', async () => {
    // Before issue 44 each pattern walked each link on its own: 33 ms a link, 16.5 s for this page,
    // against 0.35 s now (3 s leaves room for a busy machine).
    requests.length = 0;
    const { items, ms } = await timedList({ startUrl: `${base}/farm/`, exclude: COSTLY, maxPages: 10 });
    expect(items.map((i) => i.key === `${base}/farm/`)).toEqual([true]);
    // Every link was excluded, so none was requested.
    expect(requests.filter((p) => p.startsWith('/farm/'))).toEqual(['/farm/']);
    expect(ms).toBeLessThan(3000);
  });

  it('stop reading a sitemap index once the crawl has all the pages it may request', async () => {
    requests.length = 0;
    const { items } = await timedList({ sitemapUrl: `${base}/index.xml`, maxPages: 5, maxRequests: 20 });
    expect(items).toHaveLength(5);
    expect(requests.filter((p) => p.endsWith('.xml'))).toEqual(['/index.xml', '/big/1.xml']);
  });

  it('read 10 MiB of sitemaps in all, excluded entries or not', async () => {
    requests.length = 0;
    const { items } = await timedList({ sitemapUrl: `${base}/index.xml`, exclude: COSTLY, maxPages: 5 });
    expect(items.length).toBe(0);
    expect(requests.filter((p) => p.endsWith('.xml'))).toEqual(['/index.xml', '/big/1.xml', '/big/2.xml']);
  });

  it('are not asked about the entries of a sitemap once the queue is full', async () => {
    // 2,500 entries of 2 KB (the 5 MiB read) that no pattern excludes; the queue holds 20 of them,
    // so the patterns add next to nothing to the same crawl without them (they added 0.8 s).
    const settings = { sitemapUrl: `${base}/big/1.xml`, maxPages: 5, maxRequests: 20 };
    const plain = await timedList(settings);
    const { items, ms } = await timedList({ ...settings, exclude: COSTLY.slice(0, 49) });
    expect(items).toHaveLength(5);
    expect(ms - plain.ms).toBeLessThan(300);
  });
});
