import { createHash } from 'node:crypto';
import { Parser } from 'htmlparser2';
import type { FetchedResource, UrlFetcher } from '../domain/ports.js';
import { DocumentFailure } from '../errors.js';
import {
  type ListedItem,
  type PreviousItem,
  type SourceAccess,
  type SourceConnector,
  SourceFailure,
  WebsiteSettings,
} from './model.js';
import { RobotsRules } from './robots.js';

/** Most bytes of a sitemap or robots.txt read (larger ones are cut: what was read still counts). */
const MAX_TEXT_BYTES = 5 * 2 ** 20;
/** Most sitemaps a sitemap index leads to. */
const MAX_SITEMAPS = 20;
const ROBOTS_AGENT = 'DocSlurp';

/** A page's URL as one item: no fragment, and the default port and an empty path normalised. */
export function canonicalUrl(raw: string, base?: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  url.hash = '';
  return url.href;
}

async function readAll(resource: FetchedResource, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of resource.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      resource.body.destroy();
      break;
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** Links of an HTML page and its canonical URL, resolved against its `<base>` or its own URL. */
export function pageLinks(html: string, pageUrl: string): { links: string[]; canonical: string | undefined } {
  let base = pageUrl;
  const hrefs: string[] = [];
  let canonical: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'base' && attrs.href) base = canonicalUrl(attrs.href, pageUrl) ?? base;
        else if (name === 'a' && attrs.href && !/\bnofollow\b/i.test(attrs.rel ?? '')) hrefs.push(attrs.href);
        else if (name === 'link' && /\bcanonical\b/i.test(attrs.rel ?? '') && attrs.href)
          canonical = attrs.href;
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  const links = [...new Set(hrefs.map((h) => canonicalUrl(h, base)).filter((u): u is string => !!u))];
  return { links, canonical: canonical ? canonicalUrl(canonical, base) : undefined };
}

/** The `<loc>` entries of a sitemap or sitemap index. */
export function sitemapEntries(xml: string): { index: boolean; locations: string[] } {
  const decode = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  const locations = [...xml.matchAll(/<loc>\s*([^<]*?)\s*<\/loc>/gi)].map((m) => decode(m[1]!));
  return { index: /<sitemapindex[\s>]/i.test(xml), locations };
}

const isHtml = (type: string | null | undefined) => !!type && /html/i.test(type);

/**
 * A website, crawled breadth-first from its start page or taken from its sitemap, staying under the
 * URL prefix, within the page limit and the depth, obeying robots.txt. Every request goes through
 * the service's URL fetcher, so through the request-forgery guard and its size and time limits: a
 * sitemap that lists an internal address gets that page refused, not fetched. A page asks whether it
 * changed (If-None-Match / If-Modified-Since); an answer that is not 304 is compared by content hash.
 */
export class WebsiteConnector implements SourceConnector {
  constructor(
    private readonly fetcher: UrlFetcher,
    private readonly options: { maxPageBytes: number },
  ) {}

  async list(
    source: SourceAccess,
    previous: ReadonlyMap<string, PreviousItem>,
    signal: AbortSignal,
  ): Promise<ListedItem[]> {
    const settings = WebsiteSettings.parse(source.settings);
    const entry = settings.sitemapUrl ?? settings.startUrl!;
    const prefix = settings.urlPrefix ?? `${new URL(entry).origin}/`;
    const robots = new Map<string, RobotsRules>();
    const allowed = async (url: URL) => {
      let rules = robots.get(url.origin);
      if (!rules) {
        rules = await this.robotsOf(url.origin, signal);
        robots.set(url.origin, rules);
      }
      return rules.allows(url);
    };
    const queue: { url: string; depth: number }[] = [];
    if (settings.sitemapUrl) {
      for (const url of await this.sitemapUrls(settings.sitemapUrl, signal)) queue.push({ url, depth: 0 });
    }
    if (settings.startUrl) queue.unshift({ url: canonicalUrl(settings.startUrl)!, depth: 0 });
    const seen = new Set<string>();
    const items = new Map<string, ListedItem>();
    for (let i = 0; i < queue.length && items.size < settings.maxPages; i++) {
      if (signal.aborted) throw signal.reason;
      const { url, depth } = queue[i]!;
      if (seen.has(url) || !url.startsWith(prefix)) continue;
      seen.add(url);
      if (!(await allowed(new URL(url)))) continue;
      const entryPage = i === 0 && !!settings.startUrl;
      const page = await this.page(url, previous.get(url), signal, entryPage);
      if (!page) continue;
      if (page.key !== url) {
        // Known under its canonical URL (or where a redirect led): one item, whichever URL led to it.
        if (items.has(page.key) || !page.key.startsWith(prefix)) continue;
        seen.add(page.key);
      }
      items.set(page.key, page);
      if (depth < settings.maxDepth)
        for (const link of page.links ?? []) if (!seen.has(link)) queue.push({ url: link, depth: depth + 1 });
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
    signal: AbortSignal,
    /** The start page: without it there is no site to sync, and the sync fails instead. */
    entry = false,
  ): Promise<ListedItem | undefined> {
    const headers: Record<string, string> = {};
    if (before?.etag) headers['if-none-match'] = before.etag;
    if (before?.lastModified) headers['if-modified-since'] = before.lastModified;
    let res: FetchedResource;
    try {
      res = await this.fetcher.fetch(url, signal, headers);
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
    return {
      key,
      filename: res.filename,
      url: key,
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

  private async robotsOf(origin: string, signal: AbortSignal): Promise<RobotsRules> {
    try {
      const res = await this.fetcher.fetch(`${origin}/robots.txt`, signal);
      return RobotsRules.parse((await readAll(res, MAX_TEXT_BYTES)).toString('utf8'), ROBOTS_AGENT);
    } catch (err) {
      // No robots.txt (404) or none readable: everything is allowed, as crawlers take it.
      if (err instanceof DocumentFailure) return RobotsRules.allowAll();
      throw err;
    }
  }

  /** The page URLs of a sitemap (following a sitemap index one level down). */
  private async sitemapUrls(sitemapUrl: string, signal: AbortSignal): Promise<string[]> {
    const read = async (url: string) => {
      try {
        const res = await this.fetcher.fetch(url, signal);
        return sitemapEntries((await readAll(res, MAX_TEXT_BYTES)).toString('utf8'));
      } catch (err) {
        if (!(err instanceof DocumentFailure)) throw err;
        throw new SourceFailure(
          err.code === 'url_forbidden' ? 'source_forbidden' : 'source_unreachable',
          `The sitemap could not be read: ${err.message}`,
        );
      }
    };
    const root = await read(sitemapUrl);
    if (!root.index) return root.locations.map((l) => canonicalUrl(l)).filter((u): u is string => !!u);
    const urls: string[] = [];
    for (const child of root.locations.slice(0, MAX_SITEMAPS)) {
      const entries = await read(child);
      urls.push(...entries.locations.map((l) => canonicalUrl(l)).filter((u): u is string => !!u));
    }
    return urls;
  }

  open(_source: SourceAccess, key: string, signal: AbortSignal): Promise<FetchedResource> {
    return this.fetcher.fetch(key, signal);
  }
}
