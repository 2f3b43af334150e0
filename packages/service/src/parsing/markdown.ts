/** Small pieces of Markdown writing shared by the format parsers. */

/** One table cell: on one line, pipes escaped. */
export function tableCell(value: unknown): string {
  return String(value ?? '')
    .replace(/\s+/g, ' ')
    .replaceAll('|', '\\|')
    .trim();
}

/**
 * A GFM table whose first row is the header. Rows are padded to the widest; empty rows are dropped.
 * Returns '' for a table without content.
 */
export function markdownTable(rows: string[][]): string {
  const kept = rows.filter((r) => r.some((c) => c.trim() !== ''));
  if (kept.length === 0) return '';
  const width = Math.max(...kept.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => tableCell(r[i])).join(' | ')} |`;
  const [head, ...body] = kept;
  return [line(head!), `| ${Array<string>(width).fill('---').join(' | ')} |`, ...body.map(line)].join('\n');
}

// Spaces and tabs before it, not `\s*`: with the m flag that ran over every line break after each
// line start, quadratic in a run of empty lines.
const PAGE_MARKER_LINE = /^([ \t]*)<!--(\s*page\s+\d+\s*-->\s*)$/gim;

/**
 * Text that merely looks like a page marker must not become one: the chunker would take it for a
 * page boundary and cite the wrong page. Its `<` is escaped, which Markdown renders the same.
 */
export function neutralisePageMarkers(text: string): string {
  return text.replace(PAGE_MARKER_LINE, '$1&lt;!--$2');
}

/** Joins pages with the `<!-- page N -->` lines the chunker reads. */
export function joinPages(pages: string[]): string {
  return pages.map((p, i) => `<!-- page ${i + 1} -->\n\n${neutralisePageMarkers(p).trim()}`).join('\n\n');
}
