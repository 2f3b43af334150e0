import { parseHTML } from 'linkedom';
import { findNavigation } from '../html-boilerplate.js';
import { htmlNodeToMarkdown } from '../html-to-markdown.js';
import { refuseDeepNesting } from '../xml.js';

/**
 * A page with less than this much text once its navigation is gone is a site's index or a menu page:
 * it keeps its links, or it would have no text at all and fail as an empty document.
 */
const MIN_CONTENT_CHARS = 100;

/**
 * Parts of web pages that are never the page's content, by the names sites give them: comment threads,
 * consent banners, share bars, advertising, newsletter prompts. Only blocks (a code span of class
 * "hljs-comment" is content), and deliberately not "sidebar", "note" or "aside": documentation puts
 * its tips and warnings there (decision 0008).
 */
const NOT_CONTENT = ['div', 'section', 'aside', 'footer', 'ul', 'ol', 'form']
  .flatMap((tag) =>
    ['comment', 'disqus', 'cookie', 'consent', 'gdpr', 'share-', 'sharing', 'social', 'advert', 'sponsor']
      .concat(['newsletter', 'subscribe', 'popup'])
      .flatMap((name) => [`${tag}[class*="${name}" i]`, `${tag}[id*="${name}" i]`]),
  )
  .join(', ');

/**
 * The content of a web page as Markdown: the whole body (or what the page marks as main) without what
 * it marks as navigation, without blocks that are nearly all links (menus, "Prev Up Next" bars, tables
 * of contents: html-boilerplate.ts) and without comment threads, banners and share bars. Readability's
 * article extraction was used here before; on documentation it dropped every tip, note and warning box
 * (37 of the 170 answers of bench:manual's handbook questions), so it is no longer used (decision 0008).
 */
export function parseHtml(html: string): { text: string; title: string | null } {
  const page = asPage(closeSelfClosed(html));
  // Before linkedom builds the tree (it takes 15 s for 100,000 nested elements) and the converters
  // walk it recursively.
  refuseDeepNesting(page, false);
  const { document } = parseHTML(page);
  const title = document.querySelector('title')?.textContent?.trim() || null;
  for (const nav of document.querySelectorAll('nav, [role="navigation"]')) nav.remove();
  const main = document.querySelector('main, [role="main"]') ?? document.body;
  if (!main) return { text: '', title };
  for (const el of main.querySelectorAll(NOT_CONTENT)) el.remove();
  const navigation = findNavigation(main as never);
  if (navigation.remaining >= MIN_CONTENT_CHARS) for (const block of navigation.blocks) block.remove?.();
  return { text: htmlNodeToMarkdown(main as never), title };
}

const isXhtml = (html: string) => {
  const head = html.slice(0, 2000);
  return /^\s*<\?xml\s/.test(head) || head.includes('http://www.w3.org/1999/xhtml');
};

/** Elements that never have content: written `<br/>` or `<br>`, they are the same in HTML and XHTML. */
const VOID = new Set('area base br col embed hr img input link meta param source track wbr'.split(' '));

/**
 * XHTML's self-closed elements closed as XML closes them: `<a id="x"/>` becomes `<a id="x"></a>`. An
 * HTML parser (linkedom, as a browser reading text/html) takes `<a id="x"/>` for an opened link that
 * only the next `</a>` closes; DocBook writes such an anchor before every table, so each table of the
 * Debian Reference became link text and was dropped as navigation (decision 0029). Only for a page
 * that declares itself XHTML (an XML declaration or the XHTML namespace): in HTML the slash means
 * nothing, and browsers ignore it. Each match stops at the next angle bracket: linear.
 */
function closeSelfClosed(html: string, xhtml = isXhtml(html)): string {
  if (!xhtml) return html;
  return html.replace(/<([a-zA-Z][\w:-]*)(\s[^<>]*?)?\/>/g, (whole, name: string, attrs = '') =>
    VOID.has(name.toLowerCase()) ? whole : `<${name}${attrs}></${name}>`,
  );
}

/**
 * The markup with its <html> and <body> spelled out. Both tags are optional in HTML and browsers infer
 * them, but linkedom builds a body only when they are written: without them, a fragment (manuals ship
 * pages as `*.part.html` for a site to wrap) had no body and failed as an empty document. A <head>, when
 * there is one, stays the head; everything else becomes the body, as a browser would place it.
 */
function asPage(html: string): string {
  if (/<body[\s>/]/i.test(html)) return html;
  const rest = html.replace(/<!doctype[^>]*>/i, '').replace(/<\/?html(?:\s[^>]*)?>/gi, '');
  const headStart = rest.search(/<head[\s>]/i);
  const headEnd = headStart < 0 ? -1 : rest.search(/<\/head\s*>/i);
  const [head, body] =
    headStart >= 0 && headEnd > headStart
      ? [
          rest.slice(headStart, rest.indexOf('>', headEnd) + 1),
          rest.slice(0, headStart) + rest.slice(rest.indexOf('>', headEnd) + 1),
        ]
      : ['<head></head>', rest];
  return `<!doctype html><html>${head}<body>${body}</body></html>`;
}

/**
 * HTML fragments produced by converters (mammoth) are all content: convert them whole. `xhtml`: the
 * fragment is XHTML's (an e-book's chapter body), its self-closed elements closed as XML closes them.
 */
export function htmlFragmentToMarkdown(html: string, xhtml = false): string {
  const page = `<!doctype html><html><body>${closeSelfClosed(html, xhtml)}</body></html>`;
  refuseDeepNesting(page, false);
  const { document } = parseHTML(page);
  return htmlNodeToMarkdown(document.body as never);
}
