import Papa from 'papaparse';

function cell(value: unknown): string {
  return String(value ?? '')
    .replace(/\s+/g, ' ')
    .replaceAll('|', '\\|')
    .trim();
}

/** A delimited file as one Markdown table whose first row is the header. */
export function delimitedToMarkdown(text: string, delimiter: ',' | '\t'): string {
  const parsed = Papa.parse<string[]>(text, { delimiter, skipEmptyLines: 'greedy' });
  const rows = parsed.data.filter((r) => Array.isArray(r) && r.some((c) => String(c).trim() !== ''));
  if (rows.length === 0) return '';
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => cell(r[i])).join(' | ')} |`;
  const [head, ...body] = rows;
  return [line(head!), `| ${Array<string>(width).fill('---').join(' | ')} |`, ...body.map(line)].join('\n');
}

/** JSON pretty-printed in a fenced block, so keys and values are searchable and read naturally. */
export function jsonToMarkdown(text: string): string {
  try {
    return `\`\`\`json\n${JSON.stringify(JSON.parse(text), null, 2)}\n\`\`\``;
  } catch {
    return text;
  }
}

/** Normalises line endings and strips characters that are never text. */
export function normaliseText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
    .replace(/^\uFEFF/, '');
}
