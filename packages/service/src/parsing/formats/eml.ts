import { TextDecoder } from 'node:util';
import { DocumentFailure } from '../../errors.js';
import { parseHtml } from './html.js';

interface Part {
  headers: Map<string, string>;
  body: Buffer;
}

const MAX_PARTS = 500;
const MAX_DEPTH = 20;

function decoderFor(charset: string | undefined): TextDecoder {
  try {
    return new TextDecoder(charset?.trim() || 'utf-8');
  } catch {
    return new TextDecoder('utf-8');
  }
}

/** RFC 2047 encoded words in headers: `=?charset?B|Q?text?=`. */
export function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([bqBQ])\?([^?]*)\?=/g, (_, charset: string, enc: string, text: string) => {
      const bytes =
        enc.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : decodeQuotedPrintable(text.replace(/_/g, ' '));
      return decoderFor(charset.split('*')[0]).decode(bytes);
    });
}

function decodeQuotedPrintable(text: string): Buffer {
  const out: number[] = [];
  const src = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === '=' && /^[0-9A-Fa-f]{2}$/.test(src.slice(i + 1, i + 3))) {
      out.push(Number.parseInt(src.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      // Raw 8-bit text is kept as its bytes (latin1 maps code points 0–255 one to one).
      for (const b of Buffer.from(ch, ch.charCodeAt(0) > 255 ? 'utf8' : 'latin1')) out.push(b);
    }
  }
  return Buffer.from(out);
}

/** Splits a message or part into its headers (unfolded, lower-case names) and raw body. */
function splitPart(raw: Buffer): Part {
  const text = raw.toString('latin1');
  const m = /\r?\n\r?\n/.exec(text);
  const headerText = m ? text.slice(0, m.index) : text;
  const bodyStart = m ? m.index + m[0].length : text.length;
  const headers = new Map<string, string>();
  for (const line of headerText.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body: raw.subarray(bodyStart) };
}

/** `type/subtype; a=b; c="d"` → type and parameters. */
function contentType(value: string | undefined): { type: string; params: Map<string, string> } {
  const [type = 'text/plain', ...rest] = (value ?? 'text/plain').split(';');
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0)
      params.set(
        p.slice(0, eq).trim().toLowerCase(),
        p
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1'),
      );
  }
  return { type: type.trim().toLowerCase(), params };
}

function decodeBody(part: Part): Buffer {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.toString('latin1').replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(part.body.toString('latin1'));
  return part.body;
}

interface Leaf {
  type: string;
  charset: string | undefined;
  filename: string | undefined;
  attachment: boolean;
  body: Buffer;
}

function leaves(part: Part, depth: number, out: Leaf[]): void {
  if (out.length >= MAX_PARTS || depth > MAX_DEPTH) return;
  const ct = contentType(part.headers.get('content-type'));
  const boundary = ct.params.get('boundary');
  if (ct.type.startsWith('multipart/') && boundary) {
    const text = part.body.toString('latin1');
    const delimiter = `--${boundary}`;
    const pieces = text.split(
      new RegExp(`\\r?\\n?${delimiter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \\t]*\\r?\\n?`),
    );
    // The preamble before the first delimiter and the epilogue after the last are not parts.
    for (const piece of pieces.slice(1)) {
      if (!piece.trim()) continue;
      leaves(splitPart(Buffer.from(piece, 'latin1')), depth + 1, out);
    }
    return;
  }
  if (ct.type === 'message/rfc822') {
    leaves(splitPart(decodeBody(part)), depth + 1, out);
    return;
  }
  const disposition = part.headers.get('content-disposition') ?? '';
  const filename =
    /filename\*?=(?:"([^"]*)"|([^;]+))/i.exec(disposition)?.slice(1).find(Boolean) ?? ct.params.get('name');
  out.push({
    type: ct.type,
    charset: ct.params.get('charset'),
    filename: filename ? decodeHeader(filename.replace(/^utf-8''/i, '')) : undefined,
    attachment: /^attachment/i.test(disposition) || (!ct.type.startsWith('text/') && filename !== undefined),
    body: decodeBody(part),
  });
}

function size(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1048576
      ? `${Math.round(bytes / 1024)} KB`
      : `${(bytes / 1048576).toFixed(1)} MB`;
}

/**
 * An e-mail: its subject as the title, the main headers, the body (plain text preferred, otherwise
 * HTML converted), and a list of attachments, which are not parsed: each is named with the reason.
 */
export function parseEml(buf: Buffer): { text: string; title: string | null } {
  const message = splitPart(buf);
  if (message.headers.size === 0) throw new DocumentFailure('corrupt_document', 'The e-mail has no headers.');
  const parts: Leaf[] = [];
  leaves(message, 0, parts);
  const subject = decodeHeader(message.headers.get('subject') ?? '').trim();
  const lines: string[] = [];
  if (subject) lines.push(`# ${subject}`);
  const meta = ['from', 'to', 'cc', 'date']
    .map((h) => [h, message.headers.get(h)] as const)
    .filter((e): e is readonly [string, string] => Boolean(e[1]))
    .map(([h, v]) => `${h[0]!.toUpperCase()}${h.slice(1)}: ${decodeHeader(v)}`);
  if (meta.length) lines.push(meta.join('\n'));
  const bodies = parts.filter((p) => !p.attachment && (p.type === 'text/plain' || p.type === 'text/html'));
  const plain = bodies.filter((p) => p.type === 'text/plain');
  const chosen = plain.length ? plain : bodies;
  for (const p of chosen) {
    const text = decoderFor(p.charset).decode(p.body);
    const md = p.type === 'text/html' ? parseHtml(text).text : text.trim();
    if (md) lines.push(md);
  }
  const attachments = parts.filter((p) => p.attachment || (!chosen.includes(p) && !bodies.includes(p)));
  if (attachments.length) {
    lines.push(
      '## Attachments',
      attachments
        .map(
          (a) =>
            `- ${a.filename ?? 'unnamed'} (${a.type}, ${size(a.body.length)}): not indexed with this message; upload it on its own to search it.`,
        )
        .join('\n'),
    );
  }
  return { text: lines.join('\n\n'), title: subject || null };
}
