/** What the website crawler reads in the markup it fetches: a page's links, a sitemap's entries. */
import { type Handler, Parser, type ParserOptions } from 'htmlparser2';
import { MAX_NESTING_DEPTH } from '../parsing/xml.js';

/** Most `<loc>` entries taken from one sitemap (the sitemap protocol's own limit). */
const MAX_SITEMAP_ENTRIES = 50_000;
/**
 * Most links taken from one page. A page of 20,000 links is a link farm, not documentation; a long
 * navigation sidebar has a few hundred.
 */
export const MAX_LINKS_PER_PAGE = 500;
/** Most `href`s read from one page before the links are resolved and de-duplicated. */
const MAX_HREFS_PER_PAGE = 4 * MAX_LINKS_PER_PAGE;

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

/** Stops reading markup nested too deeply (see readMarkup). */
const NESTED_TOO_DEEPLY = Symbol('nested too deeply');

/**
 * Streams markup through `handler`, up to where its elements nest deeper than MAX_NESTING_DEPTH:
 * what was read until then counts, the rest is not read. htmlparser2 keeps the open elements in an
 * array it shifts at every tag, so a page of unclosed tags costs the square of its length: 50 s for
 * the 200,000 `<div>`s of a 1 MB page, in the listing thread. No page that browsers show as written
 * nests deeper (they flatten past 512).
 */
function readMarkup(markup: string, handler: Partial<Handler>, options: ParserOptions): void {
  let depth = 0;
  const parser = new Parser(
    {
      ...handler,
      onopentag(name, attribs, implied) {
        if (++depth > MAX_NESTING_DEPTH) throw NESTED_TOO_DEEPLY;
        handler.onopentag?.(name, attribs, implied);
      },
      onclosetag(name, implied) {
        depth--;
        handler.onclosetag?.(name, implied);
      },
    },
    options,
  );
  try {
    parser.write(markup);
    parser.end();
  } catch (err) {
    if (err !== NESTED_TOO_DEEPLY) throw err;
  }
}

/** Links of an HTML page and its canonical URL, resolved against its `<base>` or its own URL. */
export function pageLinks(html: string, pageUrl: string): { links: string[]; canonical: string | undefined } {
  let base = pageUrl;
  const hrefs: string[] = [];
  let canonical: string | undefined;
  readMarkup(
    html,
    {
      onopentag(name, attrs) {
        if (name === 'base' && attrs.href) base = canonicalUrl(attrs.href, pageUrl) ?? base;
        else if (
          name === 'a' &&
          attrs.href &&
          hrefs.length < MAX_HREFS_PER_PAGE &&
          !/\bnofollow\b/i.test(attrs.rel ?? '')
        )
          hrefs.push(attrs.href);
        else if (name === 'link' && /\bcanonical\b/i.test(attrs.rel ?? '') && attrs.href)
          canonical = attrs.href;
      },
    },
    { decodeEntities: true },
  );
  const links = new Set<string>();
  for (const href of hrefs) {
    const url = canonicalUrl(href, base);
    if (url) links.add(url);
    if (links.size >= MAX_LINKS_PER_PAGE) break;
  }
  return { links: [...links], canonical: canonical ? canonicalUrl(canonical, base) : undefined };
}

/**
 * The `<loc>` entries of a sitemap or sitemap index, read with the XML tokenizer (linear in the
 * input: a pattern over the raw text backtracked for minutes on `<loc>` and spaces without an end).
 */
export function sitemapEntries(xml: string): { index: boolean; locations: string[] } {
  const locations: string[] = [];
  let index = false;
  let text: string | undefined;
  readMarkup(
    xml,
    {
      onopentag(name) {
        if (name === 'sitemapindex') index = true;
        else if (name === 'loc') text = '';
      },
      ontext(chunk) {
        // A location is a URL: text beyond what a URL can be is not kept.
        if (text !== undefined && text.length < 4096) text += chunk;
      },
      onclosetag(name) {
        if (name !== 'loc' || text === undefined) return;
        if (locations.length < MAX_SITEMAP_ENTRIES) locations.push(text.trim());
        text = undefined;
      },
    },
    { xmlMode: true, decodeEntities: true, lowerCaseTags: true },
  );
  return { index, locations };
}
