import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { findNavigation } from '../html-boilerplate.js';
import { htmlNodeToMarkdown } from '../html-to-markdown.js';

const LONG_PAGE_CHARS = 5000;
/**
 * A page with less than this much text once its navigation is gone is a site's index or a menu page:
 * it keeps its links, or it would have no text at all and fail as an empty document.
 */
const MIN_CONTENT_CHARS = 100;

/**
 * Main content of a web page as Markdown. What the page marks as navigation, and blocks that are nearly
 * all links (menus, "Prev Up Next" bars, tables of contents: see html-boilerplate.ts), are dropped;
 * Readability then removes further boilerplate on long pages. When it finds too little (short pages,
 * documents that are all content), the whole body is used instead.
 */
export function parseHtml(html: string): { text: string; title: string | null } {
  const { document } = parseHTML(html);
  const title = document.querySelector('title')?.textContent?.trim() || null;
  // What the page itself marks as navigation is never content; what it marks as main is all of it.
  for (const nav of document.querySelectorAll('nav, [role="navigation"]')) nav.remove();
  const main = document.querySelector('main, [role="main"]') ?? document.body;
  let clean = false;
  if (main) {
    const navigation = findNavigation(main as never);
    clean = navigation.remaining >= MIN_CONTENT_CHARS;
    if (clean) for (const block of navigation.blocks) block.remove?.();
  }
  const bodyMarkdown = main ? htmlNodeToMarkdown(main as never) : '';
  let text = bodyMarkdown;
  try {
    // Readability mutates the tree it reads, so it gets its own copy.
    const article = new Readability(parseHTML(html).document as never, { keepClasses: false }).parse();
    if (article?.content) {
      const { document: content } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
      if (clean) for (const block of findNavigation(content.body as never).blocks) block.remove?.();
      const articleMarkdown = htmlNodeToMarkdown(content.body as never);
      // Boilerplate only weighs on long pages; a short page is all content. On a long page, keep
      // Readability's choice when it kept a fair share of the text.
      if (bodyMarkdown.length > LONG_PAGE_CHARS && articleMarkdown.length >= bodyMarkdown.length * 0.2)
        text = articleMarkdown;
    }
  } catch {
    // Readability fails on some malformed trees; the body conversion is a sound fallback.
  }
  return { text, title };
}

/** HTML fragments produced by converters (mammoth) are all content: convert them whole. */
export function htmlFragmentToMarkdown(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  return htmlNodeToMarkdown(document.body as never);
}
