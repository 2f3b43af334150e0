import { parseMarkup, textContent } from '../xml.js';
import { htmlFragmentToMarkdown } from './html.js';

const FENCE = /^\s{0,3}(```|~~~)/;
const HTML_BLOCK_START = /^\s{0,3}<(?:[A-Za-z][\w-]*)(?:\s|\/?>|$)/;
const COMMENT_START = /^\s{0,3}<!--/;

/** Inline Markdown kept readable for search: links and images keep their text, tags go, entities are decoded. */
function inline(line: string): string {
  const withoutLinks = line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^[\]]+)\]\((?:[^()\s]|\([^)]*\))*(?:\s+"[^"]*")?\)/g, '$1');
  if (!/[<&]/.test(withoutLinks)) return withoutLinks;
  return textContent(parseMarkup(withoutLinks, false));
}

/**
 * Markdown is kept as written, except what would mislead a reader of the extracted text: raw HTML
 * blocks (tables, lists, divs) become Markdown, HTML comments are dropped (so none can pose as a page
 * marker), link targets are dropped (their text stays) and entities are decoded outside code.
 */
export function normaliseMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (FENCE.test(line)) {
      const fence = FENCE.exec(line)![1]!;
      out.push(line);
      i++;
      while (i < lines.length) {
        out.push(lines[i]!);
        if (lines[i]!.trim().startsWith(fence)) {
          i++;
          break;
        }
        i++;
      }
      continue;
    }
    if (COMMENT_START.test(line)) {
      while (i < lines.length && !lines[i]!.includes('-->')) i++;
      i++;
      continue;
    }
    if (HTML_BLOCK_START.test(line)) {
      const block: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '') block.push(lines[i++]!);
      const md = htmlFragmentToMarkdown(block.join('\n'));
      if (md.trim()) out.push(md);
      continue;
    }
    out.push(inline(line));
    i++;
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n');
}
