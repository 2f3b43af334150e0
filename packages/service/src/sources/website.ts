import { createHash } from 'node:crypto';
import type { FetchedResource, UrlFetcher } from '../domain/ports.js';
import { DocumentFailure } from '../errors.js';
import { Sampler } from '../parsing/upload-check.js';
import { itemFilter } from './globs.js';
import {
  type ListedItem,
  type PreviousItem,
  type SourceAccess,
  type SourceConnector,
  SourceFailure,
  WebsiteSettings,
} from './model.js';
import { canonicalUrl, MAX_LINKS_PER_PAGE, pageLinks, sitemapEntries } from './pages.js';
import { unreadableReason } from './readable.js';
import { BudgetExhausted, RequestBudget } from './requests.js';
import { RobotsRules } from './robots.js';

/** Most bytes of a sitemap read (larger ones are cut: what was read still counts). */
const MAX_SITEMAP_BYTES = 5 * 2 ** 20;
/** Most bytes of robots.txt read, as the big search engines do (RFC 9309 asks for at least 500 KiB). */
const MAX_ROBOTS_BYTES = 512 * 1024;
/** Most sitemaps a sitemap index leads to. */
const MAX_SITEMAPS = 20;
/** Most bytes of all the sitemaps of one sync together (see sitemapUrls). */
const MAX_SITEMAP_BYTES_IN_ALL = 2 * MAX_SITEMAP_BYTES;
const ROBOTS_AGENT = 'DocSlurp';

/** The first `maxBytes` of a body (all of it when shorter); the rest is not read. */
async function readAll(resource: FetchedResource, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of resource.body as AsyncIterable<Buffer>) {
    if (size + chunk.length >= maxBytes) {
      parts.push(chunk.subarray(0, maxBytes - size));
      size = maxBytes;
      resource.body.destroy();
      break;
    }
    size += chunk.length;
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

const isHtml = (type: string | null | undefined) => !!type && /html/i.test(type);

/**
 * A website, crawled breadth-first from its start page or taken from its sitemap, staying under the
 * URL prefix, within the page limit and the depth, obeying robots.txt. Every request goes through
 * the service's URL fetcher, so through the request-forgery guard and its size and time limits: a
 * sitemap that lists an internal address gets that page refused, not fetched. A page asks whether it
 * changed (If-None-Match / If-Modified-Since); an answer that is not 304 is compared by content hash.
 *
 * What the crawl holds is bounded whatever the site serves: links per page, the frontier (a URL is
 * queued once, and never more URLs than requests remain), links kept per page (those under the
 * prefix, only where the crawl can go deeper), requests and hosts per sync, paced per host.
 */
export class WebsiteConnector implements SourceConnector {
  constructor(
    private readonly fetcher: UrlFetcher,
    private readonly options: { maxPageBytes: number; imagesReadable?: boolean },
  ) {}

  async list(
    source: SourceAccess,
    previous: ReadonlyMap<string, PreviousItem>,
    signal: AbortSignal,
  ): Promise<ListedItem[]> {
    const settings = WebsiteSettings.parse(source.settings);
    const entry = settings.sitemapUrl ?? settings.startUrl!;
    const prefix = settings.urlPrefix ?? `${new URL(entry).origin}/`;
    const maxRequests = settings.maxRequests ?? Math.min(50_000, 2 * settings.maxPages + 20);
    const budget = new RequestBudget(
      this.fetcher,
      { maxRequests, maxHosts: settings.maxHosts, delayMs: settings.requestDelayMs },
      signal,
    );
    const robots = new Map<string, RobotsRules>();
    const allowed = async (url: URL) => {
      let rules = robots.get(url.origin);
      if (!rules) {
        rules = await this.robotsOf(url.origin, budget);
        robots.set(url.origin, rules);
        budget.slowDown(url.host, rules.crawlDelaySeconds);
      }
      return rules.allows(url);
    };
    // Every URL is queued at most once (`queued` also holds those already fetched), and the queue
    // never holds more than the requests left could fetch: a page of 20,000 links adds at most its
    // first MAX_LINKS_PER_PAGE, a link farm fills the queue up to the budget and no further.
    const queue: { url: string; depth: number }[] = [];
    const queued = new Set<string>();
    /** One string per URL however many pages link to it: link lists share them. */
    const interned = new Map<string, string>();
    const excluded = itemFilter(undefined, settings.exclude);
    const included = itemFilter(settings.include, undefined);
    const pathOf = (url: string) => new URL(url).pathname;
    const enqueue = (raw: string, depth: number) => {
      const url = interned.get(raw) ?? raw;
      // What costs nothing is asked first: a full queue turns a link away before a pattern reads it,
      // so the links of a page or a sitemap beyond what the crawl can still fetch cost no matching.
      if (queue.length >= maxRequests || queued.has(url) || !url.startsWith(prefix)) return;
      // An excluded page is never requested.
      if (!excluded(pathOf(url))) return;
      queued.add(url);
      interned.set(url, url);
      queue.push({ url, depth });
    };
    if (settings.startUrl) enqueue(canonicalUrl(settings.startUrl)!, 0);
    if (settings.sitemapUrl)
      await this.sitemapUrls(settings.sitemapUrl, budget, (locations) => {
        for (const location of locations) {
          if (queue.length >= maxRequests) return false;
          const url = canonicalUrl(location);
          if (url) enqueue(url, 0);
        }
        return true;
      });
    const items = new Map<string, ListedItem>();
    let cutShort = false;
    for (let i = 0; i < queue.length && items.size < settings.maxPages; i++) {
      if (signal.aborted) throw signal.reason;
      const { url, depth } = queue[i]!;
      // Free what the queue no longer needs; its strings live on in `queued`.
      queue[i] = undefined as never;
      const target = new URL(url);
      if (!budget.reaches(target)) continue;
      let page: ListedItem | undefined;
      try {
        if (!(await allowed(target))) continue;
        const entryPage = i === 0 && !!settings.startUrl;
        page = await this.page(url, previous.get(url), budget, entryPage);
      } catch (err) {
        if (!(err instanceof BudgetExhausted)) throw err;
        cutShort = true;
        break;
      }
      if (!page) continue;
      if (page.key !== url) {
        // Known under its canonical URL (or where a redirect led): one item, whichever URL led to it.
        if (items.has(page.key) || !page.key.startsWith(prefix)) continue;
        queued.add(page.key);
      }
      // Links kept by an earlier sync are held to the same cap as a page's, before any is matched.
      const links = (page.links ?? []).slice(0, MAX_LINKS_PER_PAGE);
      // Only links the crawl may follow are kept with the item (a page that answers 304 next time
      // leads on through them); at the depth limit, none.
      page.links = depth < settings.maxDepth ? links.filter((l) => l.startsWith(prefix)) : [];
      page.links = page.links.map((l) => interned.get(l) ?? l);
      for (const link of page.links) enqueue(link, depth + 1);
      // A page outside the include patterns leads the crawl on but is no document (nor, so, an item:
      // a page that answers 304 next time is fetched whole again, as its links were not kept).
      if (!included(pathOf(page.key)) || !excluded(pathOf(page.key))) continue;
      items.set(page.key, page);
    }
    if (cutShort || budget.exhausted) {
      // The budget ended the crawl: a page the last sync had and that is still linked or listed
      // was not fetched, not found gone; it stays as it was.
      for (const url of queued) {
        const before = previous.get(url);
        if (before && !items.has(url) && items.size < settings.maxPages)
          items.set(url, this.keep(url, before));
      }
    }
    return [...items.values()];
  }

  /**
   * One page as an item; undefined when it cannot be had (refused by the guard, gone, not a
   * document). A page the previous sync had that cannot be fetched now stays as it was (a network
   * hiccup must not delete it); only a page that is no longer linked or listed is deleted.
   */
  private async page(
    url: string,
    before: PreviousItem | undefined,
    budget: RequestBudget,
    /** The start page: without it there is no site to sync, and the sync fails instead. */
    entry = false,
  ): Promise<ListedItem | undefined> {
    const headers: Record<string, string> = {};
    if (before?.etag) headers['if-none-match'] = before.etag;
    if (before?.lastModified) headers['if-modified-since'] = before.lastModified;
    let res: FetchedResource;
    try {
      res = await budget.fetch(url, headers);
    } catch (err) {
      if (!(err instanceof DocumentFailure)) throw err;
      if (entry)
        throw new SourceFailure(
          err.code === 'url_forbidden'
            ? 'source_forbidden'
            : err.httpStatus
              ? 'source_missing'
              : 'source_unreachable',
          `The start page could not be fetched: ${err.message}`,
        );
      // Refused by the guard, or answered that it is gone: not an item. Anything else (a timeout, a
      // server error) keeps the page as it was.
      if (err.code === 'url_forbidden' || (err.httpStatus && err.httpStatus < 500)) return undefined;
      return before && this.keep(url, before);
    }
    if (res.status === 304) {
      res.body.resume();
      return before && this.keep(url, before);
    }
    let body: Buffer;
    try {
      body = await readAll(res, this.options.maxPageBytes);
    } catch (err) {
      if (err instanceof DocumentFailure) return before && this.keep(url, before);
      throw err;
    }
    const final = canonicalUrl(res.finalUrl) ?? url;
    const parsed = isHtml(res.contentType) ? pageLinks(body.toString('utf8'), final) : undefined;
    const key = parsed?.canonical ?? final;
    const sampler = new Sampler();
    sampler.add(body);
    return {
      key,
      filename: res.filename,
      url: key,
      skipReason: unreadableReason(sampler.sample(), res.filename, res.contentType, {
        imagesReadable: this.options.imagesReadable ?? true,
      }),
      fingerprint: {
        etag: res.etag ?? null,
        lastModified: res.lastModified ?? null,
        contentHash: createHash('sha256').update(body).digest('hex'),
      },
      links: parsed?.links ?? [],
    };
  }

  private keep(url: string, before: PreviousItem): ListedItem {
    return {
      key: url,
      filename: before.key.split('/').filter(Boolean).pop() ?? url,
      url,
      fingerprint: before,
      notModified: true,
      links: before.links ?? [],
    };
  }

  private async robotsOf(origin: string, budget: RequestBudget): Promise<RobotsRules> {
    try {
      const res = await budget.fetch(`${origin}/robots.txt`);
      return RobotsRules.parse((await readAll(res, MAX_ROBOTS_BYTES)).toString('utf8'), ROBOTS_AGENT);
    } catch (err) {
      // No robots.txt (404) or none readable: everything is allowed, as crawlers take it.
      if (err instanceof DocumentFailure) return RobotsRules.allowAll();
      throw err;
    }
  }

  /**
   * The page locations of a sitemap (following a sitemap index one level down), handed to `take` a
   * sitemap at a time until it answers that the crawl wants no more: a sitemap the crawl has no room
   * for is not requested. The sitemaps of one sync are read up to MAX_SITEMAP_BYTES_IN_ALL together,
   * since every entry is matched against the source's patterns, excluded or not, and a sitemap holds
   * a hundred times the links a page may give.
   */
  private async sitemapUrls(
    sitemapUrl: string,
    budget: RequestBudget,
    take: (locations: string[]) => boolean,
  ): Promise<void> {
    let bytesLeft = MAX_SITEMAP_BYTES_IN_ALL;
    const read = async (url: string) => {
      try {
        const res = await budget.fetch(url);
        const body = await readAll(res, Math.min(MAX_SITEMAP_BYTES, bytesLeft));
        bytesLeft -= body.length;
        return sitemapEntries(body.toString('utf8'));
      } catch (err) {
        if (!(err instanceof DocumentFailure)) throw err;
        throw new SourceFailure(
          err.code === 'url_forbidden' ? 'source_forbidden' : 'source_unreachable',
          `The sitemap could not be read: ${err.message}`,
        );
      }
    };
    const urls = (locations: string[]) =>
      locations.map((l) => canonicalUrl(l)).filter((u): u is string => !!u);
    const root = await read(sitemapUrl);
    if (!root.index) {
      take(root.locations);
      return;
    }
    for (const child of urls(root.locations).slice(0, MAX_SITEMAPS)) {
      if (budget.exhausted || bytesLeft <= 0) break;
      if (!budget.reaches(new URL(child))) continue;
      if (!take((await read(child)).locations)) break;
    }
  }

  open(_source: SourceAccess, key: string, signal: AbortSignal): Promise<FetchedResource> {
    return this.fetcher.fetch(key, signal);
  }
}
